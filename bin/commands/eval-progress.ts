/** Where progress goes: a terminal is redrawn in place, anything else gets a line per tenth. */
export interface ProgressOut {
  write(text: string): unknown;
  isTTY?: boolean;
}

const BAR = 30;

/** A progress bar of `total` cases on `out`: `update(done)` after each, `end()` once. */
export function progressBar(out: ProgressOut, total: number) {
  let lastTenth = 0;
  return {
    update(done: number, failed: number) {
      const share = total === 0 ? 1 : done / total;
      const note = failed ? ` · ${failed} failed` : '';
      if (out.isTTY) {
        const filled = Math.round(share * BAR);
        out.write(
          `\r\x1b[2K[${'█'.repeat(filled)}${'░'.repeat(BAR - filled)}] ${done}/${total} ${Math.floor(share * 100)}%${note}`,
        );
        return;
      }
      const tenth = Math.floor(share * 10);
      if (tenth > lastTenth) {
        lastTenth = tenth;
        out.write(`eval: ${done}/${total} cases (${Math.floor(share * 100)}%)${note}\n`);
      }
    },
    end() {
      if (out.isTTY) out.write('\n');
    },
  };
}
