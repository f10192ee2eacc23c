/**
 * Replays deploy/Dockerfile's build on this machine, without a Docker engine: each stage gets a
 * folder standing for its filesystem, WORKDIR, COPY (the context filtered by the Dockerfile's
 * .dockerignore) and ENV act on it, and the RUN steps that install the app run there for real.
 * The steps that set up the system (apt-get, useradd) are not replayed but returned, for the test
 * to check what this machine has instead; `chown <user>` gives files to `owner`, the unprivileged
 * account standing for the image's user.
 */
import { execFile } from 'node:child_process';
import { cp, mkdir, readdir, readFile } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import { promisify } from 'node:util';
import { envOf, type Instruction, parseDockerfile, type Stage } from './dockerfile.ts';

const exec = promisify(execFile);

export interface Owner {
  uid: number;
  gid: number;
}

export interface ReplayedImage {
  /** The runtime stage's WORKDIR, on this machine. */
  workdir: string;
  /** The runtime stage's ENV. */
  env: Record<string, string>;
  user: string;
  cmd: string[];
  healthcheck: string[];
  stopSignal: string;
  /** The VOLUME folders, on this machine. */
  volumes: string[];
  expose: string[];
  /** The RUN steps that set up the system, not replayed. */
  systemSteps: string[];
  stages: Stage[];
}

const SYSTEM_STEP = /^(apt-get|useradd)\b/;

export async function replayImage(options: {
  dockerfile: string;
  context: string;
  /** An empty folder: each stage's filesystem is made under it. */
  root: string;
  owner: Owner;
  /** The environment of the RUN steps, besides the stage's ENV. */
  env: NodeJS.ProcessEnv;
}): Promise<ReplayedImage> {
  const stages = parseDockerfile(await readFile(options.dockerfile, 'utf8'));
  const ignored = await ignorePatterns(`${options.dockerfile}.dockerignore`);
  const roots = new Map<string, string>();
  const systemSteps: string[] = [];
  let last: Omit<ReplayedImage, 'systemSteps' | 'stages'> | undefined;

  for (const [index, stage] of stages.entries()) {
    const root = join(options.root, stage.name ?? `stage-${index}`);
    if (stage.name) roots.set(stage.name, root);
    await mkdir(root, { recursive: true });
    const onHost = (path: string, from = workdirIn(stage, root)) =>
      isAbsolute(path) ? join(root, path) : join(from, path);
    let workdir = root;
    const env: Record<string, string> = {};
    const user = stage.instructions.find((i) => i.keyword === 'USER')?.args ?? 'root';
    const image: Omit<ReplayedImage, 'systemSteps' | 'stages'> = {
      workdir,
      env,
      user,
      cmd: [],
      healthcheck: [],
      stopSignal: '',
      volumes: [],
      expose: [],
    };
    for (const instruction of stage.instructions) {
      switch (instruction.keyword) {
        case 'WORKDIR':
          workdir = onHost(instruction.args, workdir);
          await mkdir(workdir, { recursive: true });
          image.workdir = workdir;
          break;
        case 'ENV':
          Object.assign(env, envOf(instruction));
          break;
        case 'COPY':
          await copy(instruction, {
            sourceRoot: instruction.flags.from ? roots.get(instruction.flags.from) : options.context,
            fromStage: Boolean(instruction.flags.from),
            dest: (path) => onHost(path, workdir),
            ignored,
          });
          break;
        case 'RUN': {
          const command = instruction.args;
          if (SYSTEM_STEP.test(command)) {
            systemSteps.push(command);
            break;
          }
          const owned = command.replaceAll(`${user}:${user}`, `${options.owner.uid}:${options.owner.gid}`);
          await exec('sh', ['-c', owned], {
            cwd: workdir,
            env: { ...options.env, ...env },
            timeout: 240_000,
            maxBuffer: 16 << 20,
          }).catch((error: { stdout?: string; stderr?: string; message: string }) => {
            throw new Error(`RUN ${command} failed: ${error.message}\n${error.stdout}\n${error.stderr}`);
          });
          break;
        }
        case 'CMD':
          image.cmd = execForm(instruction);
          break;
        case 'HEALTHCHECK':
          image.healthcheck = execForm(instruction);
          break;
        case 'STOPSIGNAL':
          image.stopSignal = instruction.args;
          break;
        case 'VOLUME':
          image.volumes = execForm(instruction).map((path) => onHost(path, workdir));
          break;
        case 'EXPOSE':
          image.expose = instruction.args.split(/\s+/);
          break;
      }
    }
    last = image;
  }
  if (!last) throw new Error('the Dockerfile has no stage');
  return { ...last, systemSteps, stages };
}

function workdirIn(stage: Stage, root: string): string {
  return join(root, stage.instructions.find((i) => i.keyword === 'WORKDIR')?.args ?? '/');
}

function execForm(instruction: Instruction): string[] {
  if (!instruction.exec)
    throw new Error(`Dockerfile:${instruction.line}: ${instruction.keyword} must use the exec (JSON) form`);
  return instruction.exec;
}

async function copy(
  instruction: Instruction,
  options: {
    sourceRoot: string | undefined;
    fromStage: boolean;
    dest: (path: string) => string;
    ignored: RegExp[];
  },
): Promise<void> {
  if (!options.sourceRoot) throw new Error(`Dockerfile:${instruction.line}: COPY from an unknown stage`);
  const words = instruction.args.split(/\s+/);
  const destWord = words.pop()!;
  const dest = options.dest(destWord);
  const intoFolder = destWord.endsWith('/') || destWord === '.' || words.length > 1;
  for (const source of words) {
    const from = join(options.sourceRoot, source);
    if (source === '.') {
      await mkdir(dest, { recursive: true });
      for (const name of await readdir(from)) {
        if (!options.fromStage && options.ignored.some((pattern) => pattern.test(name))) continue;
        await cp(join(from, name), join(dest, name), { recursive: true, verbatimSymlinks: true });
      }
    } else {
      const name = source.split('/').at(-1)!;
      if (!options.fromStage && options.ignored.some((pattern) => pattern.test(name)))
        throw new Error(`Dockerfile:${instruction.line}: ${source} is excluded by the .dockerignore`);
      await cp(from, intoFolder ? join(dest, name) : dest, { recursive: true, verbatimSymlinks: true });
    }
  }
}

/** The .dockerignore's patterns, each a top-level name with `*` wildcards (what deploy/ uses). */
async function ignorePatterns(file: string): Promise<RegExp[]> {
  const text = await readFile(file, 'utf8');
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((pattern) => {
      if (/[/!?[\]]/.test(pattern)) throw new Error(`${file}: "${pattern}" is more than the replay reads`);
      const escaped = pattern.replace(/[.+^${}()|\\]/g, '\\$&').replaceAll('*', '[^/]*');
      return new RegExp(`^${escaped}$`);
    });
}
