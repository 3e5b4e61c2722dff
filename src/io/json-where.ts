/**
 * Where JSON.parse gave up on a document, as a 1-based line and column, which V8 does not always say (Node 20
 * names the token, not its position, and an early end has none): a walk of the JSON grammar that stops at the
 * first character that cannot continue the document. Its open brackets are a stack of its own, not calls: a
 * document nested 200,000 deep is an error to name, not a stack to overflow.
 */
export function syntaxErrorAt(text: string): { line: number; column: number } {
  return lineColumn(text, syntaxErrorOffset(text));
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

function syntaxErrorOffset(text: string): number {
  const n = text.length;
  /** The closing bracket of each container still open. */
  const open: number[] = [];
  let i = 0;
  const space = () => {
    for (let c = text.charCodeAt(i); c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;)
      c = text.charCodeAt(++i);
  };
  const string = (): boolean => {
    if (text.charCodeAt(i) !== 0x22) return false;
    for (i++; i < n;) {
      const c = text.charCodeAt(i);
      if (c < 0x20) return false;
      i++;
      if (c === 0x22) return true;
      if (c !== 0x5c) continue;
      const e = text[i];
      if (e !== undefined && '"\\/bfnrt'.includes(e)) i++;
      else if (e === 'u' && /^[0-9a-fA-F]{4}$/.test(text.slice(i + 1, i + 5))) i += 5;
      else return false;
    }
    return false;
  };
  /** A key and its colon, at i (after `{` or a comma). */
  const key = (): boolean => {
    space();
    if (!string()) return false;
    space();
    if (text.charCodeAt(i) !== 0x3a) return false;
    i++;
    return true;
  };
  const scalar = (): boolean => {
    const c = text[i];
    if (c === '"') return string();
    const word = c === 't' ? 'true' : c === 'f' ? 'false' : c === 'n' ? 'null' : undefined;
    if (word) {
      for (const w of word) {
        if (text[i] !== w) return false;
        i++;
      }
      return true;
    }
    NUMBER.lastIndex = i;
    const m = NUMBER.exec(text);
    if (!m) return false;
    i += m[0].length;
    return true;
  };
  for (;;) {
    // A value.
    space();
    const c = text.charCodeAt(i);
    if (c === 0x7b || c === 0x5b) {
      const close = c === 0x7b ? 0x7d : 0x5d;
      i++;
      space();
      if (text.charCodeAt(i) === close) i++;
      else {
        open.push(close);
        if (c === 0x7b && !key()) return i;
        continue;
      }
    } else if (!scalar()) return i;
    // After a value: the containers it closes, then a comma before the next.
    for (;;) {
      space();
      if (open.length === 0) return i;
      const d = text.charCodeAt(i);
      if (d === open.at(-1)) {
        i++;
        open.pop();
        continue;
      }
      if (d !== 0x2c) return i;
      i++;
      if (open.at(-1) === 0x7d && !key()) return i;
      break;
    }
  }
}

/** 1-based line and column of a character offset. */
function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, column: offset - lineStart + 1 };
}
