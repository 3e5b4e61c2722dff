import * as TreeSitter from 'web-tree-sitter';
export = TreeSitter;
