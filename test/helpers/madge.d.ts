// madge ships no types: the part of its API test/architecture.test.ts calls.
declare module 'madge' {
  interface MadgeConfig {
    fileExtensions?: string[];
    tsConfig?: string;
    detectiveOptions?: { ts?: { skipTypeImports?: boolean } };
  }
  interface MadgeResult {
    /** Each import circle found, as files relative to the folder searched. */
    circular(): string[][];
    /** Imports madge could not resolve to a file (such an import could hide a circle). */
    warnings(): { skipped: string[] };
  }
  export default function madge(path: string, config?: MadgeConfig): Promise<MadgeResult>;
}
