/** Kept equal to package.json's version by a test; bundled code has no package.json to read. */
export const VERSION = '0.1.0';
export const TOOL_NAME = 'groundgate';
/**
 * Where the Action is published, for the workflows `groundgate init` writes (the README's examples use the
 * same name). Replace it when the repository has its final home.
 */
export const ACTION_REPOSITORY = 'owner/groundgate';
