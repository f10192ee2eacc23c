import { closestName, didYouMean } from '../core/closest-name.ts';
import { COMMAND_NAMES, commandHelp } from './command-help.ts';
import { USAGE } from './usage.ts';

interface Out {
  write(text: string): unknown;
}

/**
 * `hubos help [<command>]` and `hubos <command> --help`: the command's own help, or the usage.
 * Returns the exit code: 0, or 2 for a command that does not exist.
 */
export function helpCommand(argv: string[], stdout: Out, stderr: Out): number {
  const [first, second] = argv;
  const command = first === 'help' ? second : first;
  if (command === undefined || command === 'help') {
    stdout.write(USAGE);
    return 0;
  }
  const help = commandHelp(command);
  if (help) {
    stdout.write(help);
    return 0;
  }
  stderr.write(`hubos: ${unknownCommand(command)}\n\n${USAGE}`);
  return 2;
}

/** The options `hubos` takes before a command. */
const GLOBAL_OPTIONS = ['help', 'version'];

/** `unknown command "x"`, with the command a typo most likely meant. */
export function unknownCommand(word: string): string {
  if (word.startsWith('-'))
    return `unknown option "${word}"${didYouMean(word.replace(/^-+/, ''), GLOBAL_OPTIONS, (name) => `--${name}`)}`;
  const guess = guessCommand(word);
  return `unknown command "${word}"${guess ? ` (did you mean "hubos ${guess}"?)` : ': run "hubos help" for the list'}`;
}

/** The command a mistyped one most likely meant: a near spelling, or the one it begins (`create`). */
function guessCommand(word: string): string | undefined {
  return (
    closestName(word, COMMAND_NAMES) ??
    (word.length >= 3 ? COMMAND_NAMES.find((name) => name.startsWith(word.toLowerCase())) : undefined)
  );
}
