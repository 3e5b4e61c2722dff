import { closeSync, openSync } from 'node:fs';
import { ioError } from '../errors.js';

/**
 * Files kept open by a reader that reads them synchronously many times (cut points, chunks of lines): one
 * open per file, not one per read. Close when done.
 */
export class OpenFiles {
  private readonly open = new Map<string, number>();

  fd(file: string): number {
    let fd = this.open.get(file);
    if (fd === undefined) {
      try {
        fd = openSync(file, 'r');
      } catch (err) {
        throw ioError(file, err);
      }
      this.open.set(file, fd);
    }
    return fd;
  }

  close(): void {
    for (const fd of this.open.values()) closeSync(fd);
    this.open.clear();
  }
}
