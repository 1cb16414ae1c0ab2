import { spawn } from "node:child_process";
import { chmodSync, cpSync, mkdirSync, readdirSync, readFileSync, statSync } from "node:fs";
import { basename, join, relative, resolve } from "node:path";
import dockerignoreModule from "@balena/dockerignore";
import {
  type Copy,
  DockerfileParser,
  type Env,
  type From,
  type Healthcheck,
  type Instruction,
  type JSONInstruction,
} from "dockerfile-ast";

/**
 * The container image without containers (this machine cannot run them, issue #14): the Dockerfile carried out on
 * the host, a folder per stage, so the steps the tests prove are the image's own. It follows the few instructions
 * our Dockerfile uses and refuses any other, so a Dockerfile that grows past them fails here instead of going
 * untested. What the host cannot give is the base image: Node and npm are the ones the tests run on, at the
 * version the Dockerfile names (deploy-files.test.ts checks they match).
 */

export const REPO = resolve(import.meta.dirname, "../../..");

/**
 * Docker's own .dockerignore matching (@balena/dockerignore, which docker-modem uses). Its CommonJS export carries
 * itself as `default` for TypeScript, whose NodeNext resolution takes the module for `{ default }`.
 */
export const dockerignore = dockerignoreModule.default;

/** The steps of deploy/image-steps.sh the Dockerfile may RUN; anything else in a RUN is refused. */
const STEP = /^deploy\/image-steps\.sh [a-z-]+$/u;

export interface Stage {
  name: string | undefined;
  /** The base image, as FROM names it. */
  from: string;
  /** The stage's file system: the container's `/` is this folder. */
  root: string;
  /** WORKDIR, in the container. */
  workdir: string;
  env: Record<string, string>;
  /** USER as uid:gid, when set. */
  user: { uid: number; gid: number } | undefined;
}

export interface Image extends Stage {
  /** The folder of WORKDIR on this machine. */
  dir: string;
  cmd: string[];
  healthcheck: string[];
  exposed: string[];
}

/** The Dockerfile's instructions, parsed by the library VS Code's Docker support uses. */
export function dockerfileInstructions(repo = REPO): Instruction[] {
  return DockerfileParser.parse(readFileSync(join(repo, "Dockerfile"), "utf8")).getInstructions();
}

/** The exec form's strings (`CMD ["a", "b"]`); the shell form is refused (SIGTERM would reach the shell, not node). */
export function execForm(instruction: Instruction): string[] {
  const strings = (instruction as JSONInstruction).getJSONStrings?.() ?? [];
  if (strings.length === 0) throw new Error(`${instruction.getKeyword()} must use the exec form ["…", "…"]`);
  return strings.map((s) => s.getJSONValue());
}

/** HEALTHCHECK's command (exec form) and its options. */
export function healthcheckOf(instruction: Instruction): { command: string[]; options: Record<string, string> } {
  const match = /^CMD\s+(\[.*\])\s*$/su.exec(instruction.getArgumentsContent() ?? "");
  if (!match?.[1]) throw new Error('HEALTHCHECK must be HEALTHCHECK [--options] CMD ["…"]');
  const flags = (instruction as Healthcheck).getFlags();
  const options = Object.fromEntries(flags.map((flag) => [flag.getName(), flag.getValue() ?? ""]));
  return { command: JSON.parse(match[1]) as string[], options };
}

/** The build context as docker sends it: the repository less what .dockerignore excludes. */
export function buildContext(into: string, repo = REPO): string[] {
  const patterns = readFileSync(join(repo, ".dockerignore"), "utf8").split("\n");
  // An excluded folder is skipped whole, which is right only while nothing inside one is brought back with "!".
  if (patterns.some((line) => line.trim().startsWith("!"))) throw new Error(".dockerignore: '!' is not followed here");
  const ignored = dockerignore().add(patterns);
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(join(repo, dir), { withFileTypes: true })) {
      const path = dir ? `${dir}/${entry.name}` : entry.name;
      if (ignored.ignores(path)) continue;
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile()) files.push(path);
    }
  };
  walk("");
  for (const file of files) cpSync(join(repo, file), join(into, file), { preserveTimestamps: true });
  return files;
}

/** Runs a command as the image would (its environment only, as its user), failing with its output. */
export function run(
  command: string,
  args: string[],
  options: { cwd: string; env: Record<string, string>; user?: Stage["user"] },
): Promise<string> {
  return new Promise((done, fail) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env,
      ...asUser(options.user),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk));
    child.on("error", fail);
    child.on("close", (code) =>
      code === 0
        ? done(output)
        : fail(new Error(`${command} ${args.join(" ")} exited ${code}:\n${output.slice(-4000)}`)),
    );
  });
}

/** USER is honoured when the tests run as root (as CI does); otherwise everything runs as the tests' own user. */
export function asUser(user: Stage["user"]): { uid?: number; gid?: number } {
  return user && process.getuid?.() === 0 ? { uid: user.uid, gid: user.gid } : {};
}

/**
 * The environment a step of the image sees: the image's ENV and the PATH of the tests (their Node 24 first, for the
 * base image's), nothing of the test run's own (its NODE_ENV=test, npm's variables). HOME keeps npm's cache, as the
 * Dockerfile's cache mount does for /root/.npm.
 */
export function imageEnv(stage: Pick<Stage, "env">): Record<string, string> {
  return { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/root", ...stage.env };
}

/** This machine's way out to the npm registry (its proxy, its certificate authorities), as a build here is given. */
const NETWORK = /^(NODE_EXTRA_CA_CERTS|SSL_CERT_FILE|SSL_CERT_DIR|https?_proxy|no_proxy)$/iu;

function buildEnv(stage: Stage): Record<string, string> {
  const network = Object.entries(process.env).filter(([name, value]) => NETWORK.test(name) && value !== undefined);
  return { ...(Object.fromEntries(network) as Record<string, string>), ...imageEnv(stage) };
}

/** Carries out the Dockerfile in `dir` on the build context of the repository; returns the last stage. */
export async function buildImage(dir: string, log: (line: string) => void = () => {}, repo = REPO): Promise<Image> {
  // Every user of the image can reach its files, as in an image (mkdtemp makes a folder for its owner alone).
  chmodSync(dir, 0o755);
  const context = join(dir, "context");
  buildContext(context, repo);
  const stages: Stage[] = [];
  let stage: Stage | undefined;
  let cmd: string[] = [];
  let healthcheck: string[] = [];
  const exposed: string[] = [];
  const inStage = (s: Stage, path: string) => join(s.root, path.startsWith("/") ? path : join(s.workdir, path));

  for (const instruction of dockerfileInstructions(repo)) {
    const keyword = instruction.getKeyword();
    const args = instruction.getArguments().map((a) => a.getValue());
    if (keyword === "FROM") {
      const from = instruction as From;
      stage = {
        name: from.getBuildStage() ?? undefined,
        from: from.getImage() ?? "",
        root: join(dir, `stage-${stages.length}`),
        workdir: "/",
        env: {},
        user: undefined,
      };
      mkdirSync(stage.root, { recursive: true });
      stages.push(stage);
      cmd = [];
      healthcheck = [];
      exposed.length = 0;
      continue;
    }
    if (!stage) throw new Error(`${keyword} before FROM`);
    log(`${keyword} ${instruction.getArgumentsContent() ?? ""}`);
    switch (keyword) {
      case "WORKDIR":
        stage.workdir = args[0] ?? "/";
        mkdirSync(inStage(stage, stage.workdir), { recursive: true });
        break;
      case "ENV":
        for (const property of (instruction as Env).getProperties()) {
          stage.env[property.getName()] = property.getValue() ?? "";
        }
        break;
      case "COPY": {
        const flags = (instruction as Copy).getFlags();
        const from = (instruction as Copy).getFromFlag()?.getValue();
        if (flags.some((f) => f.getName() !== "from")) throw new Error("COPY: only --from is followed here");
        const source = from ? stages.find((s) => s.name === from) : undefined;
        if (from && !source) throw new Error(`COPY --from=${from}: no such stage`);
        const sources = args.slice(0, -1);
        const target = args.at(-1) as string;
        for (const src of sources) {
          if (/[*?[]/u.test(src)) throw new Error(`COPY ${src}: wildcards are not followed here`);
          const path = source ? inStage(source, src) : join(context, src);
          const intoFolder = target.endsWith("/") || sources.length > 1;
          // A folder's contents are copied (not the folder itself); a file lands in a target ending in "/".
          const destination =
            statSync(path).isDirectory() || !intoFolder
              ? inStage(stage, target)
              : inStage(stage, join(target, basename(src)));
          cpSync(path, destination, { recursive: true, preserveTimestamps: true });
        }
        break;
      }
      case "RUN": {
        const flags = (instruction as JSONInstruction).getFlags();
        // A cache mount keeps npm's downloads between builds; it changes nothing in the result.
        if (flags.some((f) => f.getName() !== "mount" || !f.getValue()?.startsWith("type=cache,"))) {
          throw new Error("RUN: only --mount=type=cache is followed here");
        }
        const command = args.join(" ");
        if (!STEP.test(command)) throw new Error(`RUN ${command}: every RUN must be a step of deploy/image-steps.sh`);
        const [script, step] = command.split(" ") as [string, string];
        log(await run(script, [step], { cwd: inStage(stage, stage.workdir), env: buildEnv(stage), user: stage.user }));
        break;
      }
      case "USER": {
        const match = /^(\d+):(\d+)$/u.exec(args[0] ?? "");
        if (!match) throw new Error("USER must be numeric uid:gid (Kubernetes' runAsNonRoot can only check a number)");
        stage.user = { uid: Number(match[1]), gid: Number(match[2]) };
        break;
      }
      case "EXPOSE":
        exposed.push(...args);
        break;
      case "HEALTHCHECK":
        healthcheck = healthcheckOf(instruction).command;
        break;
      case "CMD":
        cmd = execForm(instruction);
        break;
      default:
        throw new Error(`the image test does not follow ${keyword}: keep the Dockerfile to what it can prove`);
    }
  }
  if (!stage) throw new Error("the Dockerfile has no FROM");
  const image = { ...stage, dir: inStage(stage, stage.workdir), cmd, healthcheck, exposed };
  log(`image: ${relative(dir, image.dir)}, user ${JSON.stringify(image.user)}, CMD ${cmd.join(" ")}`);
  return image;
}
