/** Renaming, selecting, resizing and moving: the tools that reshape existing objects. */
import type { AnyTool } from "./Tool.js"

export const shapeTools: ReadonlyArray<AnyTool> = []
