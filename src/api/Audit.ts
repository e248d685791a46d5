/** One record per tool call (`callTool` writes it), payload arguments reduced to length and hash. */
import type * as Layer from "effect/Layer"
import { Audit } from "../services/Audit.js"

export { Audit, type AuditRecord, type AuditShape } from "../services/Audit.js"

/** Writes each record as one JSON line on the process's stderr. */
export const layer: Layer.Layer<Audit> = Audit.layer

/** Drops the records, for programs that keep their own log. */
export const layerSilent: Layer.Layer<Audit> = Audit.silent
