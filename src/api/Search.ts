/** Searching the screens and recent history of many panes for patterns, matched in this process, bounded everywhere. */
export { PaneMatches, SearchMatch, type SearchOptions, searchPanes, SearchResult } from "../operations/watching/Search.js"
