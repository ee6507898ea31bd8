/** A setting that cannot work (an unreachable or too old Redis): main prints the message and exits 1. */
export class StartupError extends Error {}
