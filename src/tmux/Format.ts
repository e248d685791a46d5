/**
 * The format codec: which tmux variables to ask for, and how to read the answer back.
 *
 * Every record starts with RS (0x1e) and a tag, fields are separated by US (0x1f). Splitting on the
 * record mark instead of on newlines keeps values that contain newlines (paths may) intact, and the
 * tag lets one `;`-joined command list return several kinds of records in one round trip.
 * A record with the wrong number of fields is an error, never silently misread.
 */
import * as Either from "effect/Either"
import { Failed } from "../domain/Errors.js"

const RECORD_MARK = "\x1e"
const FIELD_MARK = "\x1f"

type FieldType = "string" | "int" | "bool" | "nullableInt"
type FieldValue<T extends FieldType> = T extends "string"
  ? string
  : T extends "int"
    ? number
    : T extends "bool"
      ? boolean
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
  /** The `-F` / `-p` format that prints one record. */
  readonly format: string
  /** Reads every record with this tag out of an invocation's output. */
  readonly decodeAll: (output: ParsedOutput) => Either.Either<Array<Decoded<F>>, Failed>
}

/** An invocation's output split into records, grouped by tag. */
export type ParsedOutput = ReadonlyMap<string, ReadonlyArray<ReadonlyArray<string>>>

export const parseOutput = (output: string): ParsedOutput => {
  const byTag = new Map<string, Array<ReadonlyArray<string>>>()
  for (const chunk of output.split(RECORD_MARK).slice(1)) {
    // tmux ends each printed record with a newline; anything else belongs to the values.
    const body = chunk.endsWith("\n") ? chunk.slice(0, -1) : chunk
    const [tag = "", ...values] = body.split(FIELD_MARK)
    const list = byTag.get(tag) ?? []
    list.push(values)
    byTag.set(tag, list)
  }
  return byTag
}

const decodeValue = (type: FieldType, raw: string): Either.Either<unknown, string> => {
  switch (type) {
    case "string":
      return Either.right(raw)
    case "bool":
      return raw === "1" ? Either.right(true) : raw === "0" || raw === "" ? Either.right(false) : Either.left(raw)
    case "int":
    case "nullableInt": {
      if (raw === "") return type === "nullableInt" ? Either.right(null) : Either.left(raw)
      const value = Number(raw)
      return Number.isInteger(value) ? Either.right(value) : Either.left(raw)
    }
  }
}

export const record = <F extends Fields>(tag: string, fields: F): RecordCodec<F> => {
  if (tag.includes(FIELD_MARK) || tag.includes(RECORD_MARK)) throw new Error(`bad record tag ${tag}`)
  const entries = Object.entries(fields)
  const format = RECORD_MARK + [tag, ...entries.map(([, field]) => `#{${field.variable}}`)].join(FIELD_MARK)
  const unparseable = (detail: string) =>
    new Failed({ command: `format ${tag}`, reason: "unparseable", exitCode: null, stderr: detail })

  const decodeAll = (output: ParsedOutput): Either.Either<Array<Decoded<F>>, Failed> => {
    const rows = output.get(tag) ?? []
    const decoded: Array<Decoded<F>> = []
    for (const values of rows) {
      if (values.length !== entries.length) {
        return Either.left(unparseable(`expected ${entries.length} fields in a ${tag} record, got ${values.length}`))
      }
      const out: Record<string, unknown> = {}
      for (let i = 0; i < entries.length; i++) {
        const [key, field] = entries[i]!
        const value = decodeValue(field.type, values[i]!)
        if (Either.isLeft(value)) {
          return Either.left(unparseable(`${field.variable} is ${JSON.stringify(value.left)}, expected ${field.type}`))
        }
        out[key] = value.right
      }
      decoded.push(out as Decoded<F>)
    }
    return Either.right(decoded)
  }
  return { tag, format, decodeAll }
}
