/** One `label: value` line of doctor's report, values aligned; a label too long for the column still gets a space. */
export const reportLine = (label: string, value: string): string => `${`${label}:`.padEnd(14)} ${value}`
