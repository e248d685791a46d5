/**
 * The opaque strings operations hand to a caller to give back later (capture_since's cursor,
 * run_command's handle): a prefix naming the kind and its version, then the fields as base64url
 * JSON. A signed token adds `mac`, an HMAC-SHA256 of the fields' JSON with a key of the caller's
 * choosing, so a changed or made-up token is refused before anything is read; its fields are
 * encoded through the schema first, which gives the JSON the one order a signature needs.
 */
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import { createHmac, timingSafeEqual } from "node:crypto"

export interface OpaqueToken<A> {
  readonly encode: (value: A) => string
  /** A failure (no reason: a token is right or not ours) when the prefix, the JSON or a field is wrong. */
  readonly decode: (text: string) => Result.Result<A, void>
  readonly encodeSigned: (key: Buffer, value: A) => string
  /** As `decode`, and a failure too when the signature does not match the fields. */
  readonly decodeSigned: (key: Buffer, text: string) => Result.Result<A, void>
}

export const opaqueToken = <A extends object, I extends object>(prefix: string, fields: Schema.Codec<A, I>): OpaqueToken<A> => {
  const encodeFields = Schema.encodeSync(fields)
  const decodeFields = Schema.decodeUnknownResult(fields)
  const sign = (key: Buffer, encoded: I) => createHmac("sha256", key).update(JSON.stringify(encoded)).digest("base64url")
  const wrap = (json: object) => prefix + Buffer.from(JSON.stringify(json), "utf8").toString("base64url")
  const unwrap = (text: string): Result.Result<unknown, void> => {
    if (!text.startsWith(prefix)) return Result.fail(undefined)
    return Result.try({
      try: () => JSON.parse(Buffer.from(text.slice(prefix.length), "base64url").toString("utf8")) as unknown,
      catch: () => undefined
    })
  }
  const decode = (text: string) => Result.flatMap(unwrap(text), (json) => Result.mapError(decodeFields(json), () => undefined))

  return {
    encode: (value) => wrap(value as object),
    decode,
    encodeSigned: (key, value) => {
      const encoded = encodeFields(value)
      return wrap({ ...encoded, mac: sign(key, encoded) })
    },
    decodeSigned: (key, text) =>
      Result.flatMap(unwrap(text), (json) => {
        const mac = typeof json === "object" && json !== null ? (json as { readonly mac?: unknown }).mac : undefined
        if (typeof mac !== "string") return Result.fail(undefined)
        return Result.flatMap(
          Result.mapError(decodeFields(json), () => undefined),
          (value): Result.Result<A, void> => {
            const expected = Buffer.from(sign(key, encodeFields(value)))
            const given = Buffer.from(mac)
            return expected.length === given.length && timingSafeEqual(expected, given) ? Result.succeed(value) : Result.fail(undefined)
          }
        )
      })
  }
}
