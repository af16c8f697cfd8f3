/** The ready timeout's default, in milliseconds. */
export const DEFAULT_TIMEOUT = 15000;
// setTimeout fires at once beyond this.
export const MAX_TIMEOUT = 2147483647;
