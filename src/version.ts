/** Kept equal to package.json's version by a test; bundled code has no package.json to read. */
export const VERSION = '0.1.0';
export const TOOL_NAME = 'groundgate';
/**
 * The GitHub repository groundgate is published from ("owner/name"): the one package.json's `repository`
 * names, kept equal to it by a test (test/readme.workflows.test.ts), undefined while it names none. The
 * workflows `groundgate init` writes, and the README's, use it as `uses: <it>@v<VERSION>`; without it they
 * run the copy of groundgate that `npm ci` installed (`uses: ./node_modules/groundgate`).
 */
export const ACTION_REPOSITORY: string | undefined = undefined;
