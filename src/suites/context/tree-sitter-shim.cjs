// web-tree-sitter's ESM build needs a working createRequire, which ncc's bundle lacks; its CommonJS build
// does not. Requiring it from a CommonJS module makes ncc bundle that build instead.
// eslint-disable-next-line @typescript-eslint/no-require-imports -- a CommonJS require is this file's purpose
module.exports = require('web-tree-sitter');
