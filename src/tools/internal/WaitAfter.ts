/**
 * The `wait` argument of the tools that send input (send_keys, paste_text): type, then wait for
 * what the program answers, in one call. The look the wait counts from is taken in the input's own
 * tmux command list (operations/watching/InlineLook.ts), so nothing the program prints in answer can
 * be missed and nothing it printed before counts. The result carries wait_for_text's answer.
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as AST from "effect/SchemaAST"
import * as Struct from "effect/Struct"
import type { ResolvedSocket } from "../../context/SocketResolver.js"
import type { TmuxMcpConfig } from "../../context/TmuxMcpConfig.js"
import { Failed, InvalidInput, type TmuxError } from "../../domain/Errors.js"
import { effectiveTimeout } from "../../operations/bounds/Waiting.js"
import { cursorOf, encodeCursor } from "../../operations/watching/PaneCursor.js"
import type { PaneView } from "../../operations/watching/Snapshot.js"
import {
  checkTextWait,
  DEFAULT_WAIT_TAIL_LINES,
  MAX_SETTLE_MS,
  TextWaitResult,
  type WaitCriteria,
  waitForText,
  WaitOutcome
} from "../../operations/watching/TextWait.js"
import type { Tmux } from "../../tmux/Tmux.js"
import { Int, optional } from "../Tool.js"
import { PatternList, TimeoutSeconds } from "./Arguments.js"

/** A settle time in milliseconds, as wait_for_text and `wait` take it. */
export const SettleMs = Int.pipe(Schema.check(Schema.isBetween({ minimum: 50, maximum: MAX_SETTLE_MS })))

/** wait_for_text's criteria in a few bytes: what its description says once, this does not repeat. */
export const WaitAfterInput = Schema.Struct({
  patterns: optional(PatternList),
  stop_patterns: optional(PatternList),
  regex: optional(Schema.Boolean),
  timeout: optional(TimeoutSeconds),
  settle_ms: optional(SettleMs),
  ignore_patterns: optional(PatternList)
})
export type WaitAfterInput = typeof WaitAfterInput.Type

export const waitAfterArgument = optional(WaitAfterInput, "Then wait, as wait_for_text.")

/**
 * paste_text's `wait` is send_keys': tools/list shows its fields once, there (listed before it);
 * decoding checks them the same.
 */
export const waitLikeSendKeysArgument = optional(WaitAfterInput.annotate({ "x-etm-json-schema": { type: "object" } }), "As send_keys'.")

/**
 * How a wait after input ended: as wait_for_text's, or `missed`: the wait stopped before it could
 * tell, after the input was sent (a regular expression ran away on the pane's text).
 */
const WaitAfterOutcome = Schema.Literals([...WaitOutcome.literals, "missed"]).annotate({
  description: `${
    AST.resolveDescription(WaitOutcome.ast) ?? ""
  } missed: the wait stopped before it could tell (wait_missed says why); the input was sent.`
})

/** The wait's answer, as send_keys and paste_text results carry it (their own fields name the pane). */
export const waitedFields = {
  ...Struct.map(Struct.omit(TextWaitResult.fields, ["pane_id", "outcome"]), Schema.optionalKey),
  outcome: Schema.optionalKey(WaitAfterOutcome),
  wait_missed: Schema.optionalKey(Schema.String).annotate({
    description: "With outcome missed: why, and how to read what the pane printed (capture_since from cursor)."
  })
}

/** The wait's answer: wait_for_text's, or a wait that stopped after the input was sent (`missed`). */
export type Waited = Omit<TextWaitResult, "pane_id"> | MissedWait

/** A wait that could not tell: what is known of it, and the cursor the input was sent at. */
export interface MissedWait {
  readonly outcome: "missed"
  readonly wait_missed: string
  readonly matched_lines: ReadonlyArray<never>
  readonly elapsed_ms: number
  readonly effective_timeout: number
  readonly timeout_clamped: boolean
  readonly cursor: string
}

/**
 * The wait's criteria, checked before any input is sent (a bad pattern refuses the call with
 * nothing typed). A wait must have something to end it: patterns or a settle time.
 */
export const checkWaitAfter = (
  wait: WaitAfterInput | undefined
): Effect.Effect<WaitCriteria | undefined, InvalidInput, TmuxMcpConfig> =>
  Effect.gen(function*() {
    if (wait === undefined) return undefined
    if ((wait.patterns === undefined || wait.patterns.length === 0) && wait.settle_ms === undefined) {
      return yield* Effect.fail(
        new InvalidInput({
          reason:
            "wait needs patterns (what the program prints when it has answered, e.g. its prompt) or settle_ms (a quiet screen). Nothing was sent."
        })
      )
    }
    const criteria: WaitCriteria = {
      patterns: wait.patterns === undefined || wait.patterns.length === 0 ? null : wait.patterns,
      stopPatterns: wait.stop_patterns,
      regex: wait.regex,
      timeout: yield* effectiveTimeout(wait.timeout),
      settleMs: wait.settle_ms,
      ignorePatterns: wait.ignore_patterns
    }
    yield* Effect.mapError(checkTextWait(criteria), (e) => new InvalidInput({ reason: `wait: ${e.reason} Nothing was sent.` }))
    return criteria
  })

/**
 * Waits for the answer to input sent with a look at the pane (`look`), as wait_for_text does from
 * there. The criteria were checked before the input was sent, so a pattern that fails now ran away
 * on the pane's text: the input went, and the answer says so (`missed`), never an error that would
 * read as nothing sent.
 */
export const waitAfter = (
  socket: ResolvedSocket,
  paneId: string,
  look: PaneView | undefined,
  criteria: WaitCriteria
): Effect.Effect<Waited, TmuxError, Tmux> =>
  Effect.gen(function*() {
    if (look === undefined) {
      return yield* Effect.fail(
        new Failed({
          command: "send-keys",
          reason: "unparseable",
          exitCode: null,
          stderr: "the input was sent, but no look at the pane came with it"
        })
      )
    }
    const started = yield* Clock.currentTimeMillis
    return yield* waitForText(socket, paneId, { ...criteria, maxLines: DEFAULT_WAIT_TAIL_LINES, from: look }).pipe(
      Effect.map(({ pane_id: _, ...waited }): Waited => waited),
      Effect.catchTag("InvalidInput", (runaway) =>
        Effect.map(Clock.currentTimeMillis, (now): MissedWait => ({
          outcome: "missed",
          wait_missed:
            `${runaway.reason} The input was sent; the wait stopped. Read what the pane printed since with capture_since from cursor.`,
          matched_lines: [],
          elapsed_ms: now - started,
          effective_timeout: criteria.timeout.seconds,
          timeout_clamped: criteria.timeout.clamped,
          cursor: encodeCursor(cursorOf(look), socket)
        })))
    )
  })
