/**
 * Unpredictable hex tokens (the marks of a query, the end mark of a command list), from
 * `randomUUID`: Node draws its CSPRNG bytes a batch at a time for it, where `randomBytes` goes to
 * the system per call (25–70 µs of a one-pane read, measured). A v4 UUID has 30 fully random hex
 * digits: all but the dashes, the version digit and the variant digit.
 */
import { randomUUID } from "node:crypto"

/** The most digits one token can have. */
export const MAX_RANDOM_HEX_DIGITS = 30

export const randomHex = (digits: number): string => {
  if (!Number.isInteger(digits) || digits < 1 || digits > MAX_RANDOM_HEX_DIGITS) {
    throw new RangeError(`randomHex: 1 to ${MAX_RANDOM_HEX_DIGITS} digits, not ${digits}`)
  }
  // xxxxxxxx-xxxx-4xxx-Vxxx-xxxxxxxxxxxx: the x are random.
  const uuid = randomUUID()
  return (uuid.slice(0, 8) + uuid.slice(9, 13) + uuid.slice(15, 18) + uuid.slice(20, 23) + uuid.slice(24)).slice(0, digits)
}
