// Run before each test file of the 'shared' project (vitest.config.ts), whose files follow one another in
// one process and share the modules it has loaded. src/io/utf8.ts keeps its notes of input that is not UTF-8
// until a run takes them: a file whose tests read such input without a run would hand its notes to the next
// file's first run, as a warning about a file that run never read. Each file starts with none, as it did in
// a process of its own.
import { takeUtf8Notes } from '../../src/io/utf8.js';

takeUtf8Notes();
