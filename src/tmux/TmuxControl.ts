/** Placeholder while the control-mode transport is written: spawn per call. */
import { TmuxExec } from "./TmuxExec.js"
export const TmuxControl = { layer: TmuxExec.layer }
