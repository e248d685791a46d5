/**
 * tmux options and hooks: read any scope's options (values exact, inherited ones marked) or hooks,
 * and set or unset the options of an allowlist whose values tmux never runs or expands.
 */
export {
  OptionEntry,
  OptionScope,
  OptionSet,
  type OptionsRequest,
  type OptionsWhere,
  setOption,
  showOptions
} from "../operations/environment/Options.js"
export { ALLOWED_OPTIONS, type AllowedOption, type OptionKind, type OptionType, refusalOf } from "../operations/environment/OptionTable.js"
