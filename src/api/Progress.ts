/**
 * Progress of a long operation (a wait): provide the `Progress` service to receive a report about
 * once a second; without it, reports go nowhere.
 */
export { Progress, type ProgressReport, type ProgressShape } from "../services/Progress.js"
