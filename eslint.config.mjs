// ESLint with typescript-eslint and @effect/eslint-plugin, the set-up of Effect's own repositories:
// dprint formats (one style, checked and fixed by `npm run lint` / `npm run format`), and
// no-import-from-barrel-package keeps imports of effect deep (`effect/Effect`), which the bundle's
// cold start depends on (a barrel pulls in every module).
import effect from "@effect/eslint-plugin"
import tseslint from "typescript-eslint"

export default tseslint.config(
  { ignores: ["dist/**", "node_modules/**", "bench/results/**", "scratch/**", ".scratch/**", "coverage/**"] },
  {
    files: ["**/*.ts"],
    extends: [tseslint.configs.recommended],
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none" }],
      "@typescript-eslint/no-explicit-any": "error",
      "@typescript-eslint/no-namespace": "off",
      "no-control-regex": "error"
    }
  },
  {
    // Tests read results as parsed JSON of whatever shape the call gave.
    files: ["test/**/*.ts"],
    rules: { "@typescript-eslint/no-explicit-any": "off" }
  },
  ...effect.configs.dprint,
  {
    files: ["**/*.ts", "**/*.mjs"],
    plugins: { "@effect": effect },
    rules: {
      "@effect/dprint": [
        "error",
        {
          config: {
            indentWidth: 2,
            lineWidth: 140,
            semiColons: "asi",
            quoteStyle: "alwaysDouble",
            trailingCommas: "never",
            operatorPosition: "maintain",
            "arrowFunction.useParentheses": "force"
          }
        }
      ],
      "@effect/no-import-from-barrel-package": ["error", { packageNames: ["effect", "@effect/platform", "@effect/platform-node"] }]
    }
  },
  {
    // stdout carries the MCP protocol: nothing in the server writes to it but the transport.
    files: ["src/**/*.ts"],
    rules: { "no-console": "error" }
  }
)
