import { escapeControls } from "../../domain/ControlText.js"

/**
 * One `label: value` line of doctor's report, values aligned; a label too long for the column still
 * gets a space. A value may quote a host, a socket or a binary (ssh's stderr, a forced command's
 * output): its control characters are shown as `\xNN`, never sent raw to the terminal.
 */
export const reportLine = (label: string, value: string): string => `${`${label}:`.padEnd(14)} ${escapeControls(value)}`
