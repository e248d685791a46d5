/** Where the program runs and which tmux server its calls reach, as the `where_am_i` tool answers. */
export { whereAmI } from "../operations/servers/WhereAmI.js"
