import type { Stats } from 'node:fs';

/**
 * A hard link is the file itself, not a path that points somewhere: confinement cannot see that a
 * name in the workspace is also a file elsewhere (`ln /etc/secret workspace/notes`). So a regular
 * file with more than one link is not read unless the config says the workspace's hard links are
 * trusted; the check runs on the opened descriptor's fstat, so what is checked is what is read.
 */
export function hasOtherHardLinks(stat: Stats): boolean {
  return stat.isFile() && stat.nlink > 1;
}

/** The why and how-to that refusals and skip notes share. */
export const HARD_LINK_REASON =
  'a file with more than one hard link may be a file from outside the workspace (a hard link between two workspace files looks the same)';
export const HARD_LINK_HOW_TO_ALLOW =
  "if the workspace's hard links are trusted (pnpm's node_modules, for one), set filesystem: { readHardLinkedFiles: true } in the config";

export function hardLinkedReadError(path: string, links: number): Error {
  return new Error(
    `refusing to read a hard-linked file (${links} links): ${path}; ${HARD_LINK_REASON}. ` +
      `To allow it, ${HARD_LINK_HOW_TO_ALLOW}`,
  );
}
