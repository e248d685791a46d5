/**
 * The format codec: which tmux variables to ask for, and how to read the answer back.
 *
 * Every record starts with a record mark and a tag; fields are separated by a field mark. Splitting
 * on the record mark instead of on newlines keeps values that contain newlines (paths may) intact,
 * and the tag lets one `;`-joined command list return several kinds of records in one round trip.
 * tmux prints paths and commands unescaped, so a directory name could hold any fixed mark and
 * forge fields or whole records: the marks carry a random token chosen afresh for every query.
 * A record with the wrong number of fields is an error, never silently misread.
 */
import * as Result from "effect/Result"
import { Failed } from "../domain/Errors.js"
import { randomHex } from "./internal/RandomHex.js"

/** The separators of one query's output. */
export interface Marks {
  readonly record: string
  readonly field: string
}

/** Fresh marks: RS / US control characters followed by a token nobody can predict (48 bits). */
export const newMarks = (): Marks => {
  const token = randomHex(12)
  return { record: `\x1e${token}`, field: `\x1f${token}` }
}

type FieldType = "string" | "int" | "bool" | "nullableInt"
type FieldValue<T extends FieldType> = T extends "string" ? string
  : T extends "int" ? number
  : T extends "bool" ? boolean
  : number | null

export interface Field<T extends FieldType = FieldType> {
  readonly variable: string
  readonly type: T
}

export const string = (variable: string): Field<"string"> => ({ variable, type: "string" })
export const int = (variable: string): Field<"int"> => ({ variable, type: "int" })
export const bool = (variable: string): Field<"bool"> => ({ variable, type: "bool" })
/** An integer that tmux leaves empty in some states (e.g. a dead pane's pid). */
export const nullableInt = (variable: string): Field<"nullableInt"> => ({ variable, type: "nullableInt" })

export type Fields = Readonly<Record<string, Field>>
export type Decoded<F extends Fields> = { readonly [K in keyof F]: FieldValue<F[K]["type"]> }

export interface RecordCodec<F extends Fields> {
  readonly tag: string
  /** The `-F` / `-p` format that prints one record with these marks. */
  readonly format: (marks: Marks) => string
  /** Reads every record with this tag out of an invocation's output. */
  readonly decodeAll: (output: ParsedOutput) => Result.Result<Array<Decoded<F>>, Failed>
  /** The first record with this tag, for a command that always prints one: none is unreadable output. */
  readonly decodeFirst: (output: ParsedOutput) => Result.Result<Decoded<F>, Failed>
}

/** tmux's answer was not what the commands print: a `Failed` the caller can act on, never a defect. */
export const unreadable = (command: string, detail: string): Failed =>
  new Failed({ command, reason: "unparseable", exitCode: null, stderr: detail })

/** An invocation's output split into records, grouped by tag. */
export type ParsedOutput = ReadonlyMap<string, ReadonlyArray<ReadonlyArray<string>>>

/** A mark as tmux 3.4 and 3.5 print it: they vis-escape what a command prints, a control character as `\ooo`. */
const visEscaped = (mark: string): string => `\\${mark.charCodeAt(0).toString(8).padStart(3, "0")}${mark.slice(1)}`

/**
 * The output with raw marks. tmux 3.4 and 3.5 print the marks of `-p` / `-F` formats escaped (3.6
 * stopped escaping command output); captured pane text is never escaped and never holds a control
 * character, so an output with no raw record mark came from such a version and its escaped marks
 * are the marks. When raw marks are there, escaped-looking text is a value's and stays text.
 */
export const withRawMarks = (output: string, marks: Marks): string =>
  output.includes(marks.record) ?
    output :
    output.replaceAll(visEscaped(marks.record), marks.record).replaceAll(visEscaped(marks.field), marks.field)

export const parseOutput = (output: string, marks: Marks): ParsedOutput => {
  const byTag = new Map<string, Array<ReadonlyArray<string>>>()
  for (const chunk of withRawMarks(output, marks).split(marks.record).slice(1)) {
    // tmux ends each printed record with a newline; anything else belongs to the values.
    const body = chunk.endsWith("\n") ? chunk.slice(0, -1) : chunk
    const [tag = "", ...values] = body.split(marks.field)
    const list = byTag.get(tag) ?? []
    list.push(values)
    byTag.set(tag, list)
  }
  return byTag
}

/** What a field decoder returns for text that is not a value of its type. */
const UNREADABLE: unique symbol = Symbol("unreadable")

const integer = (raw: string): number | typeof UNREADABLE => {
  const value = Number(raw)
  return Number.isInteger(value) ? value : UNREADABLE
}

/** One plain function per type (no Either per value: a 500-pane listing decodes thousands). */
const DECODERS: { readonly [T in FieldType]: (raw: string) => unknown } = {
  string: (raw) => raw,
  bool: (raw) => raw === "1" ? true : raw === "0" || raw === "" ? false : UNREADABLE,
  int: (raw) => raw === "" ? UNREADABLE : integer(raw),
  nullableInt: (raw) => raw === "" ? null : integer(raw)
}

export const record = <F extends Fields>(tag: string, fields: F): RecordCodec<F> => {
  if (!/^[a-z]+$/.test(tag)) throw new Error(`bad record tag ${tag}`)
  const entries = Object.entries(fields)
  const references = entries.map(([, field]) => `#{${field.variable}}`)
  const format = (marks: Marks) => marks.record + [tag, ...references].join(marks.field)
  const unparseable = (detail: string) => unreadable(`format ${tag}`, detail)

  const keys = entries.map(([key]) => key)
  const decoders = entries.map(([, field]) => DECODERS[field.type])
  const decodeAll = (output: ParsedOutput): Result.Result<Array<Decoded<F>>, Failed> => {
    const rows = output.get(tag) ?? []
    const decoded: Array<Decoded<F>> = []
    for (const values of rows) {
      if (values.length !== keys.length) {
        return Result.fail(unparseable(`expected ${keys.length} fields in a ${tag} record, got ${values.length}`))
      }
      const out: Record<string, unknown> = {}
      for (let i = 0; i < keys.length; i++) {
        const value = decoders[i]!(values[i]!)
        if (value === UNREADABLE) {
          const field = entries[i]![1]
          return Result.fail(unparseable(`${field.variable} is ${JSON.stringify(values[i])}, expected ${field.type}`))
        }
        out[keys[i]!] = value
      }
      decoded.push(out as Decoded<F>)
    }
    return Result.succeed(decoded)
  }
  const decodeFirst = (output: ParsedOutput): Result.Result<Decoded<F>, Failed> =>
    Result.flatMap(
      decodeAll(output),
      (rows) => rows[0] === undefined ? Result.fail(unparseable(`tmux printed no ${tag} record`)) : Result.succeed(rows[0])
    )
  return { tag, format, decodeAll, decodeFirst }
}
