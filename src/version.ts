/** Kept equal to package.json's version by a test; bundled code has no package.json to read. */
export const VERSION = '0.1.0';
export const TOOL_NAME = 'groundgate';
