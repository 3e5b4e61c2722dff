export function eagerFactories(
  code: string,
  file: string,
): { code: string; map: { toString(): string }; rewritten: number };
