// Placeholder until the embed surfaces land.
export function embedMiddleware() {
  return async (_ctx, next) => next();
}
