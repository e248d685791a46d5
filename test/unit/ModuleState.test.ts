/**
 * No module-global state in src/ (issue 11): what several calls share lives in a service, built by
 * a layer and released with it (e.g. TmuxProcesses, the children of one transport). A module may
 * hold constants, lookup tables included, but no `let`/`var` at its top level, and nothing at its
 * top level is changed in place (`.add`, `.set`, `.push`, …, or assigned to). A top-level WeakMap is
 * not shared state: what it holds belongs to the object it is keyed by (FakeTmux's layout trees of
 * a world's windows) and goes with it; it is the one container allowed.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import { readdirSync, readFileSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import ts from "typescript"
import { TmuxProcesses } from "../../src/tmux/TmuxProcess.js"

const sourceRoot = join(resolve(dirname(fileURLToPath(import.meta.url)), "../.."), "src")

const sourceFiles = (dir: string): Array<string> =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sourceFiles(join(dir, entry.name)) : entry.name.endsWith(".ts") ? [join(dir, entry.name)] : []
  )

const MUTATORS = new Set(["add", "set", "delete", "clear", "push", "pop", "shift", "unshift", "splice", "sort", "reverse", "fill"])

/** Where a file keeps state at its top level: `let`/`var` declarations, and top-level names changed in place. */
export const moduleState = (fileName: string, text: string): Array<string> => {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true)
  const found: Array<string> = []
  const topLevel = new Set<string>()
  const where = (node: ts.Node) => `${fileName}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`
  for (const statement of source.statements) {
    if (!ts.isVariableStatement(statement)) continue
    const list = statement.declarationList
    const mutable = (list.flags & (ts.NodeFlags.Let | ts.NodeFlags.Const)) !== ts.NodeFlags.Const
    for (const declaration of list.declarations) {
      if (!ts.isIdentifier(declaration.name)) continue
      const weak = declaration.initializer !== undefined &&
        ts.isNewExpression(declaration.initializer) &&
        declaration.initializer.expression.getText() === "WeakMap"
      if (!weak) topLevel.add(declaration.name.text)
      if (mutable) found.push(`${where(declaration)} declares ${declaration.name.text} with let/var at the top level`)
    }
  }
  // A local of the same name shadows the top-level one; scopes are approximated by function bodies.
  const visit = (node: ts.Node, shadowed: ReadonlySet<string>): void => {
    let inner = shadowed
    if (ts.isFunctionLike(node) || ts.isBlock(node)) {
      const locals = new Set(shadowed)
      node.forEachChild(function collect(child) {
        if (ts.isVariableDeclaration(child) && ts.isIdentifier(child.name)) locals.add(child.name.text)
        if (ts.isParameter(child) && ts.isIdentifier(child.name)) locals.add(child.name.text)
        if (!ts.isFunctionLike(child) && !ts.isBlock(child)) child.forEachChild(collect)
      })
      inner = locals
    }
    const isTopLevel = (expression: ts.Expression) =>
      ts.isIdentifier(expression) && topLevel.has(expression.text) && !inner.has(expression.text)
    if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      MUTATORS.has(node.expression.name.text) &&
      isTopLevel(node.expression.expression) &&
      node.parent !== undefined
    ) {
      found.push(`${where(node)} changes the top-level ${node.expression.expression.getText()} (.${node.expression.name.text})`)
    }
    if (
      ts.isBinaryExpression(node) && node.operatorToken.kind >= ts.SyntaxKind.FirstAssignment &&
      node.operatorToken.kind <= ts.SyntaxKind.LastAssignment
    ) {
      const target = node.left
      const base = ts.isPropertyAccessExpression(target) || ts.isElementAccessExpression(target) ? target.expression : target
      if (isTopLevel(base)) found.push(`${where(node)} assigns to the top-level ${base.getText()}`)
    }
    node.forEachChild((child) => visit(child, inner))
  }
  source.forEachChild((child) => visit(child, new Set()))
  return found
}

describe("module-global state", () => {
  it("no file of src/ keeps state at its top level", () => {
    const found = sourceFiles(sourceRoot).flatMap((file) => moduleState(relative(sourceRoot, file), readFileSync(file, "utf8")))
    expect(found).toEqual([])
  })

  it("the check sees a top-level let, a Set filled by a function and an object assigned to, and leaves locals and WeakMaps alone", () => {
    const text = [
      "let count = 0",
      "const running = new Set<number>()",
      "const table = new Set([1, 2])",
      "const state = { n: 0 }",
      "export const track = (n: number) => { running.add(n); state.n = n; return table.has(n) }",
      "export const local = () => { const running = new Set<number>(); running.add(1); let x = 0; x += 1; return x }",
      "const owned = new WeakMap<object, number>()",
      "export const note = (o: object) => { owned.set(o, 1) }"
    ].join("\n")
    expect(moduleState("made-up.ts", text)).toEqual([
      "made-up.ts:1 declares count with let/var at the top level",
      "made-up.ts:5 changes the top-level running (.add)",
      "made-up.ts:5 assigns to the top-level state"
    ])
  })
})

describe("TmuxProcesses", () => {
  it.live("owns its children: the process's exit hook lives as long as the layer, and its release ends what still runs", () =>
    Effect.gen(function*() {
      const hooks = process.listenerCount("exit")
      const scope = yield* Scope.make()
      const processes = Context.get(yield* Layer.buildWithScope(TmuxProcesses.layer, scope), TmuxProcesses)
      expect(process.listenerCount("exit")).toBe(hooks + 1)
      const child = processes.spawn("sleep", ["30"], { env: { PATH: process.env.PATH ?? "/usr/bin:/bin" }, stdin: false })
      const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once("exit", (_code, signal) => resolve(signal)))
      yield* Scope.close(scope, Exit.void)
      expect(process.listenerCount("exit")).toBe(hooks)
      expect(yield* Effect.promise(() => exited)).toBe("SIGKILL")
    }))
})
