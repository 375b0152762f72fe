import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../src/goo/validate';
import { checkRun } from '../src/run/check';
import { RunRequest } from '../src/run/request';
import { strictProblems } from '../src/tasks/answer-schema';
import { compileDeclaration } from '../src/tasks/declarative/compile';
import { loadTaskDeclaration, parseDeclarationText, YAML_PACKAGE } from '../src/tasks/declarative/load';
import { compileParser, lastNumberList, tagContent } from '../src/tasks/declarative/parsers';
import { TaskDeclaration, type TaskDeclarationInput, taskIdOf } from '../src/tasks/declarative/schema';
import { combineSamples, compileJudge, compileLocalScorer, harmonicMean, lastNumber, readRatings } from '../src/tasks/declarative/scorers';
import { asText, compileTemplate, parseTemplate, TemplateError, templateProblems } from '../src/tasks/declarative/templates';
import { DOC_MERGE_MARKERS } from '../src/tasks/doc-merge/prompts';
import { resolveTask } from '../src/tasks/registry';
import type { PromptRequest } from '../src/tasks/task';
import { validationIssues } from './support/tasks';

const LITE_PATH = new URL('../examples/tasks/doc-merge-lite.json', import.meta.url).pathname;
const lite = (): TaskDeclarationInput => JSON.parse(readFileSync(LITE_PATH, 'utf8')) as TaskDeclarationInput;

/** A small numeric task: sum a list of numbers, scored by distance to the expected total. */
const summing = (): Record<string, unknown> => ({
  id: 'sum-list',
  higherIsBetter: false,
  noAnswerScore: 1000,
  problem: { numbers: { type: 'number[]', minItems: 1 }, total: { type: 'number' } },
  size: 'numbers',
  prompts: {
    sum: { user: 'Add up {{numbers}}. Reply with the total alone.', parser: { kind: 'text' } },
    check: { user: 'Is {{thought}} the sum of {{numbers | join:" + "}}? Reply with the correct total.' },
  },
  parser: { kind: 'text' },
  scorers: { distance: { kind: 'numeric', expected: 'total', tolerance: 0.5 } },
  schemes: {
    io: {
      operations: [
        { id: 'sum', type: 'generate', prompt: 'sum', k: 2 },
        { id: 'score', type: 'score', inputs: ['sum'] },
        { id: 'truth', type: 'groundTruth', inputs: ['score'] },
      ],
    },
  },
  examples: [{ numbers: [1, 2, 3], total: 6 }],
});

const liteProblem = { documents: ['NDA one. The first party keeps secrets.', 'NDA two. The second party keeps secrets too.'] };

const issuesOf = (input: unknown) => validationIssues(() => checkRun(input));

const runWith = (task: unknown, extra: Record<string, unknown> = {}) => ({ task, problem: liteProblem, goo: lite().schemes.io, ...extra });

// biome-ignore lint/suspicious/noExplicitAny: the tests edit declarations freely, most of them into malformed ones.
type Editable = Record<string, any>;

/** The doc-merge-lite declaration with one change. */
function liteWith(change: (d: Editable) => void): Record<string, unknown> {
  const d = lite() as Editable;
  change(d);
  return d;
}

describe('the doc-merge-lite example declaration', () => {
  it('is a valid declaration that checkRun accepts for both of its schemes', () => {
    const d = lite();
    for (const scheme of ['io', 'got']) {
      const checked = checkRun({ task: d, problem: liteProblem, goo: d.schemes[scheme] });
      expect(checked.task.id).toBe('doc-merge-lite');
      expect(checked.task.prompts).toEqual(['merge', 'aggregate', 'improve']);
      expect(Object.keys(checked.task.llmScorers ?? {})).toEqual(['judge']);
    }
  });

  it('opens its prompts with the doc-merge marker sentences, so the simulated LLM answers them', () => {
    const d = lite() as Editable;
    expect(d.prompts.merge.user).toContain(DOC_MERGE_MARKERS.merge);
    expect(d.prompts.aggregate.user).toContain(DOC_MERGE_MARKERS.aggregate);
    expect(d.prompts.improve.user).toContain(DOC_MERGE_MARKERS.improve);
    expect(d.scorers.judge.user).toContain(DOC_MERGE_MARKERS.judge);
  });
});

describe('declarations are refused with the offending field named', () => {
  it.each([
    {
      name: 'a missing higherIsBetter',
      task: liteWith((d) => delete d.higherIsBetter),
      path: /^task\.higherIsBetter$/,
      message: /true or false/,
    },
    { name: 'an unknown top-level field', task: liteWith((d) => (d.promts = {})), path: /^task$/, message: /promts/ },
    { name: 'an id that is not lower-case', task: liteWith((d) => (d.id = 'Doc Merge')), path: /^task\.id$/, message: /lower-case/ },
    { name: 'the id of a built-in task', task: liteWith((d) => (d.id = 'doc-merge')), path: /^task\.id$/, message: /built-in task/ },
    {
      name: 'an unknown field type',
      task: liteWith((d) => (d.problem.documents.type = 'text[]')),
      path: /^task\.problem\.documents\.type$/,
      message: /"string\[\]"/,
    },
    {
      name: 'a list bound on a text field',
      task: liteWith((d) => (d.problem.title = { type: 'string', minItems: 1 })),
      path: /^task\.problem\.title\.minItems$/,
      message: /only list/,
    },
    {
      name: 'a field name templates cannot name',
      task: liteWith((d) => (d.problem['my-field'] = { type: 'string' })),
      path: /^task\.problem\.my-field$/,
      message: /invalid name "my-field": a field name is/,
    },
    {
      name: 'a prompt name with a space',
      task: liteWith((d) => (d.prompts['bad name'] = { user: 'x' })),
      path: /^task\.prompts\.bad name$/,
      message: /a prompt name is a letter/,
    },
    {
      name: 'a reserved field name',
      task: liteWith((d) => (d.problem.thought = { type: 'string' })),
      path: /^task\.problem\.thought$/,
      message: /reserved/,
    },
    {
      name: 'an unknown field in a prompt',
      task: liteWith((d) => (d.prompts.merge.user = 'Merge {{documnets}}')),
      path: /^task\.prompts\.merge\.user$/,
      message: /no field "documnets".*documents/,
    },
    {
      name: 'an unknown filter',
      task: liteWith((d) => (d.prompts.merge.user = '{{documents | taged:Doc}}')),
      path: /^task\.prompts\.merge\.user$/,
      message: /unknown filter "taged"/,
    },
    {
      name: 'an unclosed placeholder',
      task: liteWith((d) => (d.prompts.merge.system = 'Hello {{documents')),
      path: /^task\.prompts\.merge\.system$/,
      message: /never closed/,
    },
    {
      name: 'the scale in a prompt',
      task: liteWith((d) => (d.prompts.merge.user = 'From {{scale.min}}')),
      path: /^task\.prompts\.merge\.user$/,
      message: /scale is not available/,
    },
    {
      name: 'params in a judge',
      task: liteWith((d) => (d.scorers.judge.user = 'Rate {{thought}} by {{params.style}}')),
      path: /^task\.scorers\.judge\.user$/,
      message: /params is not available/,
    },
    { name: 'an empty prompt', task: liteWith((d) => (d.prompts.merge.user = '')), path: /^task\.prompts\.merge\.user$/, message: /empty/ },
    {
      name: 'a prompt with a misspelt key',
      task: liteWith((d) => (d.prompts.merge = { usr: 'x' })),
      path: /^task\.prompts\.merge/,
      message: /usr|expected string/,
    },
    {
      name: 'an unknown parser',
      task: liteWith((d) => (d.parser = { kind: 'xml' })),
      path: /^task\.parser\.kind$/,
      message: /text.*json.*numberList/,
    },
    { name: 'a bad tag name', task: liteWith((d) => (d.parser.tag = 'Mer ged')), path: /^task\.parser\.tag$/, message: /tag name/ },
    {
      name: 'a JSON schema requiring an undeclared property',
      task: liteWith(
        (d) => (d.parser = { kind: 'json', schema: { type: 'object', properties: { a: { type: 'string' } }, required: ['b'] } }),
      ),
      path: /^task\.parser\.schema\.required\[0\]$/,
      message: /"b" is required/,
    },
    {
      name: 'a scheme using an undeclared prompt',
      task: liteWith((d) => (d.schemes.io.operations[0].prompt = 'mergeCot')),
      path: /^task\.schemes\.io\.operations\[0\]\.prompt$/,
      message: /no prompt "mergeCot".*merge, aggregate, improve/,
    },
    {
      name: 'a scheme using an undeclared judge',
      task: liteWith((d) => (d.schemes.io.operations[1].scorer.prompt = 'critic')),
      path: /^task\.schemes\.io\.operations\[1\]\.scorer$/,
      message: /no llmJudge scorer "critic".*judge/,
    },
    {
      name: 'a local Score without a local scorer',
      task: liteWith((d) => (d.schemes.io.operations[1].scorer = { kind: 'local' })),
      path: /^task\.schemes\.io\.operations\[1\]\.type$/,
      message: /local scorer/,
    },
    {
      name: 'a GroundTruth without a local scorer',
      task: liteWith((d) => d.schemes.io.operations.push({ id: 'truth', type: 'groundTruth', inputs: ['final'] })),
      path: /^task\.schemes\.io\.operations\[2\]\.type$/,
      message: /GroundTruth.*local scorer/,
    },
    {
      name: 'a scheme with a cycle',
      task: liteWith((d) => (d.schemes.io.operations[0].inputs = ['final'])),
      path: /^task\.schemes\.io\.operations/,
      message: /cycle|input/,
    },
    {
      name: 'a scheme operation of an unknown type',
      task: liteWith((d) => (d.schemes.io.operations[0].type = 'dance')),
      path: /^task\.schemes\.io\.operations\[0\]\.type$/,
      message: /./,
    },
    {
      name: 'a scheme lacking the params its prompt uses',
      task: liteWith((d) => (d.prompts.merge.user += '\nStyle: {{params.style}}')),
      path: /^task\.schemes\.(io|got)\.operations\[0\]\.params$/,
      message: /\{\{params\.style\}\}/,
    },
    {
      name: 'a scale with min >= max',
      task: liteWith((d) => (d.scorers.judge.scale = { min: 10, max: 10 })),
      path: /^task\.scorers\.judge\.scale\.max$/,
      message: /min < max/,
    },
    {
      name: 'a harmonic mean of negative ratings',
      task: liteWith((d) => (d.scorers.judge.scale = { min: -5, max: 5 })),
      path: /^task\.scorers\.judge\.combine$/,
      message: /harmonic mean/,
    },
    {
      name: 'rating tags listed twice',
      task: liteWith((d) => (d.scorers.judge.extract.tags = ['A', 'A'])),
      path: /^task\.scorers\.judge\.extract\.tags$/,
      message: /distinct/,
    },
    {
      name: 'an unknown scorer kind',
      task: liteWith((d) => (d.scorers.judge.kind = 'vote')),
      path: /^task\.scorers\.judge\.kind$/,
      message: /llmJudge.*exactMatch.*numeric/,
    },
    {
      name: 'an exactMatch on an undeclared field',
      task: liteWith((d) => (d.scorers.exact = { kind: 'exactMatch', expected: 'solution' })),
      path: /^task\.scorers\.exact\.expected$/,
      message: /no field "solution"/,
    },
    {
      name: 'two local scorers',
      task: {
        ...summing(),
        scorers: { distance: { kind: 'numeric', expected: 'total' }, exact: { kind: 'exactMatch', expected: 'total' } },
      },
      path: /^task\.scorers\.exact\.kind$/,
      message: /at most one local scorer/,
    },
    {
      name: 'a numeric scorer where higher is better',
      task: { ...summing(), higherIsBetter: true },
      path: /^task\.higherIsBetter$/,
      message: /lower is better/,
    },
    {
      name: 'a numeric scorer without noAnswerScore',
      task: (({ noAnswerScore: _, ...rest }) => rest)(summing()),
      path: /^task\.noAnswerScore$/,
      message: /unreadable answer/,
    },
    {
      name: 'a numeric scorer on a list field',
      task: { ...summing(), scorers: { distance: { kind: 'numeric', expected: 'numbers' } } },
      path: /^task\.scorers\.distance\.expected$/,
      message: /type "number\[\]"/,
    },
    {
      name: 'a size field that does not exist',
      task: liteWith((d) => (d.size = 'docs')),
      path: /^task\.size$/,
      message: /no field "docs"/,
    },
    {
      name: 'an example that does not fit the problem',
      task: liteWith((d) => (d.examples = [{ documents: ['only one'] }])),
      path: /^task\.examples\[0\]\.documents$/,
      message: /at least 2/,
    },
    { name: 'no schemes', task: liteWith((d) => (d.schemes = {})), path: /^task\.schemes$/, message: /at least 1 schemes/ },
    {
      name: 'a declaration too large to travel',
      task: liteWith((d) => {
        d.description = undefined;
        for (const prompt of [d.prompts.merge, d.prompts.aggregate, d.prompts.improve, d.scorers.judge]) prompt.system = 'x'.repeat(50_000);
      }),
      path: /^task$/,
      message: /at most 200000/,
    },
    { name: 'a task that is neither an id nor an object', task: 42, path: /^task$/, message: /built-in task id.*or a task declaration/ },
    { name: 'an unknown task id', task: 'juggling', path: /^task$/, message: /unknown task "juggling"/ },
  ])('refuses $name', ({ task, path, message }) => {
    const issues = issuesOf(runWith(task));
    const hit = issues.find((i) => path.test(i.path) && message.test(i.message));
    expect(hit, `issues were ${JSON.stringify(issues)}`).toBeDefined();
  });

  it('checks the run itself against the declaration: its problem, prompts and params', () => {
    const d = liteWith((x) => (x.prompts.merge.user += ' {{params.style}}'));
    d.schemes = { io: { operations: [{ id: 'merge', type: 'generate', prompt: 'merge', params: { style: 'terse' } }] } };
    const goo = {
      operations: [
        { id: 'merge', type: 'generate', prompt: 'merge' },
        { id: 'fix', type: 'improve', prompt: 'polish', inputs: ['merge'] },
      ],
    };
    const issues = issuesOf({ task: d, problem: { documents: ['only one'] }, goo });
    expect(issues).toEqual(
      expect.arrayContaining([
        { path: 'problem.documents', message: expect.stringMatching(/at least 2/) as unknown as string },
        { path: 'goo.operations[1].prompt', message: expect.stringMatching(/no prompt "polish"/) as unknown as string },
      ]),
    );
    // The problem was bad, so params are only checked once it is fine.
    const params = issuesOf({ task: d, problem: liteProblem, goo: { operations: [goo.operations[0]] } });
    expect(params).toEqual([
      { path: 'goo.operations[0].params', message: expect.stringMatching(/^style: .*\{\{params\.style\}\}/) as unknown as string },
    ]);
  });

  it("names the declaration's fields when a run request is parsed outside checkRun (as the workflow does)", () => {
    // Only checks of the whole declaration failed: the union passes the declaration's issues through.
    const template = RunRequest.safeParse(runWith(liteWith((d) => (d.prompts.merge.user = '{{nope}}'))));
    expect(template.error!.issues.map((i) => [i.path.join('.'), i.message])).toEqual([
      ['task.prompts.merge.user', expect.stringMatching(/\{\{nope\}\}: the problem has no field "nope"/)],
    ]);
    // A field of the wrong type fails the union as a whole: its message lists the declaration's issues.
    const typed = RunRequest.safeParse(runWith(liteWith((d) => (d.higherIsBetter = 'yes'))));
    expect(typed.error!.issues[0]!.path).toEqual(['task']);
    expect(typed.error!.issues[0]!.message).toMatch(/^invalid task declaration: task\.higherIsBetter: expected true or false/);
  });

  it('still takes built-in task ids', () => {
    const sorting = checkRun({
      task: 'sorting',
      problem: { list: [2, 1] },
      goo: { operations: [{ id: 'sort', type: 'generate', prompt: 'sort' }] },
    });
    expect(sorting.task.id).toBe('sorting');
    expect(taskIdOf('sorting')).toBe('sorting');
    expect(taskIdOf(TaskDeclaration.parse(lite()))).toBe('doc-merge-lite');
  });
});

describe('templates', () => {
  const render = (text: string, values: Parameters<ReturnType<typeof compileTemplate>['render']>[0]) =>
    compileTemplate(text).render(values);
  const problem = { documents: ['First doc.', 'Second doc.'], numbers: [3, 1, 2], title: 'Deal', n: 4 };

  it('renders problem fields bare or under problem., with the default rendering of each kind of value', () => {
    expect(render('{{title}} / {{problem.title}} / {{n}} / {{numbers}}', { problem })).toBe('Deal / Deal / 4 / [3, 1, 2]');
    expect(render('{{documents}}', { problem })).toBe('First doc.\n\nSecond doc.');
    expect(render('{{ thought.output.items }}', { thoughts: [{ output: { items: [{ a: 1 }] } }] })).toBe('[{"a":1}]');
  });

  it('renders the input thought: its output, else the raw text of an unreadable answer, else nothing at the root', () => {
    expect(render('[{{thought}}]', { thoughts: [{ output: 'merged text' }] })).toBe('[merged text]');
    expect(render('[{{thought}}]', { thoughts: [{ answer: 'garbled' }] })).toBe('[garbled]');
    expect(render('[{{thought}}]', { thoughts: [{}] })).toBe('[]');
    expect(render('[{{thought}}]', {})).toBe('[]');
    expect(render('{{thought.part}}', { thoughts: [{ output: 'x', part: 2 }] })).toBe('2');
  });

  it('renders all input thoughts, and one field of each', () => {
    const thoughts = [
      { output: 'A', part: 1 },
      { output: 'B', part: 2 },
    ];
    expect(render('{{thoughts | tagged:Draft}}', { thoughts })).toBe('<Draft1>\nA\n</Draft1>\n\n<Draft2>\nB\n</Draft2>');
    expect(render('{{thoughts.part | json}}', { thoughts })).toBe('[1,2]');
    expect(render('{{thoughts | count}} drafts', { thoughts })).toBe('2 drafts');
  });

  it('applies each filter', () => {
    expect(render('{{documents | numbered}}', { problem })).toBe('1. First doc.\n2. Second doc.');
    expect(render('{{documents | lines}}', { problem })).toBe('First doc.\nSecond doc.');
    expect(render('{{numbers | join:", "}}', { problem })).toBe('3, 1, 2');
    expect(render('{{numbers | join:"\\n"}}', { problem })).toBe('3\n1\n2');
    expect(render('{{numbers|join:;}}', { problem })).toBe('3;1;2');
    expect(render('{{title | json}}', { problem })).toBe('"Deal"');
    expect(render('{{title | tagged:Name}}', { problem })).toBe('<Name>\nDeal\n</Name>');
    expect(render('{{documents | count}}', { problem })).toBe('2');
    expect(render('{{numbers | numbered | tagged:L}}', { problem })).toBe('<L>\n1. 3\n2. 1\n3. 2\n</L>');
  });

  it('renders params and the scale, and refuses to render without a param the template uses', () => {
    expect(render('{{params.style}} {{params.k}}', { params: { style: 'terse', k: 3 } })).toBe('terse 3');
    expect(render('{{scale.min}}-{{scale.max}}', { scale: { min: 1, max: 5 } })).toBe('1-5');
    expect(() => render('{{params.style}}', { params: {} })).toThrow(/params\.style/);
  });

  it('renders a missing optional value as empty text and never reaches inherited properties', () => {
    expect(render('[{{problem.missing}}]', { problem })).toBe('[]');
    expect(render('[{{thought.constructor}}][{{title.length}}][{{thought.__proto__}}]', { thoughts: [{ output: 'x' }], problem })).toBe(
      '[][][]',
    );
  });

  it('leaves text without placeholders alone, single braces included', () => {
    expect(render('Reply as {"total": 3} or { x }.', {})).toBe('Reply as {"total": 3} or { x }.');
    expect(parseTemplate('no placeholders')).toEqual(['no placeholders']);
  });

  it.each([
    { text: 'a {{b', error: /never closed/ },
    { text: '{{}}', error: /expected a value name/ },
    { text: '{{ a b }}', error: /expected a value name/ },
    { text: '{{a | upper}}', error: /unknown filter "upper"/ },
    { text: '{{a | tagged}}', error: /needs an argument/ },
    { text: '{{a | json:x}}', error: /takes no argument/ },
    { text: '{{a | tagged:"1x"}}', error: /tag name/ },
    { text: '{{a | join:"unterminated}}', error: /bare word or a JSON string/ },
  ])('refuses the template $text', ({ text, error }) => {
    expect(() => parseTemplate(text)).toThrow(TemplateError);
    expect(() => parseTemplate(text)).toThrow(error);
  });

  it('names values a template may not use where it is used', () => {
    const scope = { roots: ['thought', 'problem', 'scale'] as const, problemFields: ['documents'] };
    expect(templateProblems('{{thought}} {{documents}} {{scale.max}}', scope)).toEqual([]);
    expect(templateProblems('{{thoughts}}', scope)).toEqual([expect.stringMatching(/thoughts is not available here/)]);
    expect(templateProblems('{{scale.mid}}', scope)).toEqual([expect.stringMatching(/scale\.min.*scale\.max/)]);
    expect(templateProblems('{{problem}}', scope)).toEqual([expect.stringMatching(/name a problem field/)]);
  });

  it('writes values as prompts read them', () => {
    expect(asText(undefined)).toBe('');
    expect(asText(true)).toBe('true');
    expect(asText([1.5, -2])).toBe('[1.5, -2]');
    expect(asText(['a', 1])).toBe('["a",1]');
  });
});

describe('parsers', () => {
  it('text: the trimmed answer, or the content of its last tag block', () => {
    const plain = compileParser({ kind: 'text', minLength: 1 });
    expect(plain.parse('  hello \n')).toEqual({ ok: true, value: 'hello' });
    expect(plain.parse('   ')).toEqual({ ok: false, error: 'the answer is empty' });
    const tagged = compileParser({ kind: 'text', tag: 'Merged', minLength: 5 });
    expect(tagged.parse('draft <Merged>old</Merged> better: <merged>\nFinal text\n</merged>')).toEqual({ ok: true, value: 'Final text' });
    expect(tagged.parse('<Merged>\nran on without closing')).toEqual({ ok: true, value: 'ran on without closing' });
    expect(tagged.parse('no tags here')).toEqual({ ok: false, error: 'no <Merged>…</Merged> block in the answer' });
    expect(tagged.parse('<Merged>abc</Merged>')).toEqual({ ok: false, error: expect.stringMatching(/3 characters; at least 5/) });
    expect(compileParser({ kind: 'text', minLength: 1, maxLength: 3 }).parse('abcd')).toEqual({
      ok: false,
      error: expect.stringMatching(/at most 3/),
    });
  });

  it('json: a value found in a fence, in prose or in a tag, matching the declared shape', () => {
    const parser = compileParser({
      kind: 'json',
      schema: {
        type: 'object',
        properties: {
          title: { type: 'string' },
          tags: { type: 'array', items: { type: 'string', enum: ['a', 'b'] }, maxItems: 2 },
          n: { type: 'integer', minimum: 0 },
        },
        required: ['title'],
        additionalProperties: false,
      },
    });
    expect(parser.parse('{"title": "T", "n": 2}')).toEqual({ ok: true, value: { title: 'T', n: 2 } });
    expect(parser.parse('Here you go:\n```json\n{"title": "F", "tags": ["a"]}\n```\nDone.')).toEqual({
      ok: true,
      value: { title: 'F', tags: ['a'] },
    });
    expect(parser.parse('Sure! The answer is {"title": "P"} as requested.')).toEqual({ ok: true, value: { title: 'P' } });
    expect(
      compileParser({ kind: 'json', tag: 'Out', schema: { type: 'array', items: { type: 'number' } } }).parse('[9] <Out>[1, 2]</Out>'),
    ).toEqual({ ok: true, value: [1, 2] });
  });

  it('json: malformed or mismatching answers become errors naming the place', () => {
    const parser = compileParser({
      kind: 'json',
      schema: {
        type: 'object',
        properties: { n: { type: 'integer' }, tags: { type: 'array', items: { type: 'string' } } },
        required: ['n'],
        additionalProperties: false,
      },
    });
    const broken = parser.parse('{"n": 1,');
    expect(broken.ok).toBe(false);
    expect(!broken.ok && broken.error).toMatch(/no readable JSON/);
    expect(parser.parse('I cannot answer that.')).toMatchObject({ ok: false, error: expect.stringMatching(/no readable JSON/) });
    expect(parser.parse('{"n": 1.5}')).toMatchObject({ ok: false, error: expect.stringMatching(/answer\.n: /) });
    expect(parser.parse('{"n": 1, "tags": ["x", 2]}')).toMatchObject({ ok: false, error: expect.stringMatching(/answer\.tags\[1\]: /) });
    expect(parser.parse('{"n": 1, "extra": true}')).toMatchObject({ ok: false, error: expect.stringMatching(/extra/) });
    expect(parser.parse('{}')).toMatchObject({ ok: false, error: expect.stringMatching(/answer\.n: /) });
    const loose = compileParser({ kind: 'json', schema: { type: 'object', properties: {}, additionalProperties: true } });
    expect(loose.parse('{"anything": [1]}')).toEqual({ ok: true, value: { anything: [1] } });
  });

  it('numberList: the last list of numbers in the answer', () => {
    const parser = compileParser({ kind: 'numberList', integers: false });
    expect(parser.parse('Input [3, 1, 2] sorted: [1, 2, 3]')).toEqual({ ok: true, value: [1, 2, 3] });
    expect(parser.parse('[0.5, -2, 1e3] then [words, here]')).toEqual({ ok: true, value: [0.5, -2, 1000] });
    expect(parser.parse('4, 5, 6')).toEqual({ ok: true, value: [4, 5, 6] });
    expect(parser.parse('[]')).toEqual({ ok: true, value: [] });
    expect(parser.parse('The list is sorted.')).toEqual({ ok: false, error: expect.stringMatching(/no list of numbers/) });
    expect(compileParser({ kind: 'numberList', integers: true }).parse('[1, 2.5]')).toEqual({
      ok: false,
      error: expect.stringMatching(/whole numbers, got 2\.5/),
    });
    expect(compileParser({ kind: 'numberList', integers: false, minItems: 3 }).parse('[1, 2]')).toEqual({
      ok: false,
      error: expect.stringMatching(/2 numbers; at least 3/),
    });
    expect(compileParser({ kind: 'numberList', integers: false, maxItems: 1 }).parse('[1, 2]')).toEqual({
      ok: false,
      error: expect.stringMatching(/at most 1/),
    });
    expect(compileParser({ kind: 'numberList', tag: 'L', integers: false }).parse('[9] <L>[1]</L> [8]')).toEqual({ ok: true, value: [1] });
    expect(lastNumberList('[1, x]')).toBeUndefined();
  });

  it('finds tag contents forgivingly', () => {
    expect(tagContent('a <T>1</T> b <T>2</T>', 'T')).toBe('2');
    expect(tagContent('just 5</T>', 'T')).toBe('just 5');
    expect(tagContent('none', 'T')).toBeUndefined();
  });
});

describe('scorers', () => {
  const judgeSpec = {
    kind: 'llmJudge' as const,
    user: 'Rate {{thought}} against {{documents | tagged:Doc}} from {{scale.min}} to {{scale.max}}.',
    system: 'You judge {{title}}.',
    scale: { min: 0, max: 10 },
    extract: { kind: 'tags' as const, tags: ['Redundancy', 'Retained'] },
    combine: 'harmonicMean' as const,
  };

  it('llmJudge: renders its prompt from the thought, the problem and the scale', () => {
    const judge = compileJudge(judgeSpec, true);
    const messages = judge.buildPrompt({ output: 'CANDIDATE' }, { documents: ['D1'], title: 'NDAs' });
    expect(messages).toEqual([
      { role: 'system', content: 'You judge NDAs.' },
      { role: 'user', content: 'Rate CANDIDATE against <Doc1>\nD1\n</Doc1> from 0 to 10.' },
    ]);
  });

  it('llmJudge: reads every rating or none, on the scale only', () => {
    expect(readRatings(judgeSpec, 'ok\n<Redundancy>7</Redundancy>\n<Retained>8.5</Retained>')).toEqual([7, 8.5]);
    expect(readRatings(judgeSpec, '<Redundancy>7/10</Redundancy><Retained>8 out of 10</Retained>')).toEqual([7, 8]);
    expect(readRatings(judgeSpec, '<Redundancy>7</Redundancy>')).toBeUndefined();
    expect(readRatings(judgeSpec, '<Redundancy>11</Redundancy><Retained>8</Retained>')).toBeUndefined();
    expect(readRatings(judgeSpec, '<Redundancy>high</Redundancy><Retained>8</Retained>')).toBeUndefined();
    const last = { extract: { kind: 'lastNumber' as const }, scale: { min: 1, max: 5 } };
    expect(readRatings(last, 'Considering 3 aspects, I give it 4.')).toEqual([4]);
    expect(readRatings(last, 'Score: 4/5')).toEqual([4]);
    expect(readRatings(last, 'No number.')).toBeUndefined();
    expect(lastNumber('between 2 and 3.5')).toBe(3.5);
  });

  it('llmJudge: averages each rating over the samples, then combines them', () => {
    expect(
      combineSamples('mean', [
        [6, 8],
        [8, 10],
      ]),
    ).toBe(8);
    expect(
      combineSamples('harmonicMean', [
        [6, 8],
        [8, 10],
      ]),
    ).toBeCloseTo((2 * 7 * 9) / 16);
    expect(combineSamples('harmonicMean', [[0, 10]])).toBe(0);
    expect(harmonicMean([2, 4, 4])).toBe(3);
    const judge = compileJudge(judgeSpec, true);
    expect(
      judge.combine(
        [
          [10, 10],
          [10, 4],
        ],
        { state: {}, problem: {} },
      ),
    ).toBeCloseTo((2 * 10 * 7) / 17);
  });

  it('llmJudge: an unreadable judgement scores the worst end of the scale unless declared', () => {
    expect(compileJudge(judgeSpec, true).unparseableScore).toBe(0);
    expect(compileJudge(judgeSpec, false).unparseableScore).toBe(10);
    expect(compileJudge({ ...judgeSpec, unparseableScore: 5 }, true).unparseableScore).toBe(5);
  });

  it('exactMatch: 1 for a match and 0 otherwise when higher is better, white space and (optionally) case aside', () => {
    const exact = compileLocalScorer({ kind: 'exactMatch', expected: 'answer', ignoreCase: false }, true, -1);
    const problem = { answer: 'Paris is the capital' };
    expect(exact.score({ output: '  Paris  is the\ncapital ' }, problem)).toBe(1);
    expect(exact.score({ output: 'paris is the capital' }, problem)).toBe(0);
    expect(exact.score({ answer: 'Paris is the capital' }, problem)).toBe(-1); // unreadable: no output
    expect(exact.groundTruth({ output: 'Paris is the capital' }, problem)).toBe(true);
    expect(exact.groundTruth({}, problem)).toBe(false);
    const folded = compileLocalScorer({ kind: 'exactMatch', expected: 'answer', ignoreCase: true }, true, 0);
    expect(folded.score({ output: 'PARIS IS THE CAPITAL' }, problem)).toBe(1);
  });

  it('exactMatch: compares lists and objects by value, and counts errors when lower is better', () => {
    const exact = compileLocalScorer({ kind: 'exactMatch', expected: 'sorted', ignoreCase: false }, false, 1);
    expect(exact.score({ output: [1, 2, 3] }, { sorted: [1, 2, 3] })).toBe(0);
    expect(exact.score({ output: [1, 3, 2] }, { sorted: [1, 2, 3] })).toBe(1);
    const objects = compileLocalScorer({ kind: 'exactMatch', expected: 'o', ignoreCase: false }, true, 0);
    expect(objects.score({ output: { b: 1, a: 'x' } }, { o: { a: 'x', b: 1 } })).toBe(1);
  });

  it('numeric: the distance to the expected number, solved within the tolerance', () => {
    const numeric = compileLocalScorer({ kind: 'numeric', expected: 'total', tolerance: 0.5 }, false, 1000);
    const problem = { total: 6 };
    expect(numeric.score({ output: 6 }, problem)).toBe(0);
    expect(numeric.score({ output: ' 8.5 ' }, problem)).toBe(2.5);
    expect(numeric.score({ output: [3] }, problem)).toBe(3);
    expect(numeric.score({ output: 'six' }, problem)).toBe(1000);
    expect(numeric.score({}, problem)).toBe(1000);
    expect(numeric.groundTruth({ output: 6.4 }, problem)).toBe(true);
    expect(numeric.groundTruth({ output: 6.6 }, problem)).toBe(false);
    expect(numeric.groundTruth({ output: 'six' }, problem)).toBe(false);
  });
});

describe('a compiled declaration is a Task', () => {
  const request = (prompt: string, thoughts: Record<string, unknown>[] = [{}], params: Record<string, unknown> = {}): PromptRequest => ({
    prompt,
    params,
    thoughts,
    problem: { numbers: [1, 2, 3], total: 6 },
  });

  it('builds prompts, parses answers into thoughts and scores them', () => {
    const task = compileDeclaration(summing());
    expect(task.id).toBe('sum-list');
    expect(task.title).toBe('sum-list');
    expect(task.higherIsBetter).toBe(false);
    expect(task.noAnswerScore).toBe(1000);
    expect(task.buildPrompt(request('sum'))).toEqual([{ role: 'user', content: 'Add up [1, 2, 3]. Reply with the total alone.' }]);
    expect(task.buildPrompt(request('check', [{ output: '7' }]))[0]!.content).toBe(
      'Is 7 the sum of 1 + 2 + 3? Reply with the correct total.',
    );
    expect(task.parseResponse(request('sum'), '6')).toEqual([{ state: { output: '6' }, valid: true }]);
    expect(task.parseResponse(request('sum'), '')).toEqual([{ state: {}, valid: false, error: 'the answer is empty' }]);
    expect(task.score!({ output: '6' }, { numbers: [1, 2, 3], total: 6 })).toBe(0);
    expect(task.groundTruth!({ output: '9' }, { numbers: [1, 2, 3], total: 6 })).toBe(false);
    expect(task.validate!({ output: '6' }, {})).toBe(true);
    expect(task.validate!({ answer: 'garbled' }, {})).toBe(false);
    expect(task.answerText({ output: [1, 2] })).toBe('[1, 2]');
    expect(task.answerText({ answer: 'garbled' })).toBe('(no answer: garbled)');
    expect(() => task.buildPrompt(request('nope'))).toThrow(/no prompt "nope"/);
  });

  it('validates problems by the declared shape', () => {
    const task = compileDeclaration(summing());
    expect(task.problem.safeParse({ numbers: [1, 2], total: 3 }).success).toBe(true);
    const bad = task.problem.safeParse({ numbers: [], total: '3', extra: 1 });
    expect(bad.success).toBe(false);
    expect(bad.error!.issues.map((i) => i.path.join('.') || i.message).sort()).toEqual(expect.arrayContaining(['numbers', 'total']));
    expect(bad.error!.issues.some((i) => i.code === 'unrecognized_keys')).toBe(true);
  });

  it('gives schemes as fresh GoOs, sizes from the size field, and problems from its examples', () => {
    const task = compileDeclaration(summing());
    const a = task.schemes.io!({ size: 3 });
    a.operations.pop();
    expect(task.schemes.io!({ size: 3 }).operations).toHaveLength(3);
    expect(task.sizeOf({ numbers: [1, 2, 3, 4], total: 10 })).toBe(4);
    expect(task.sizes).toEqual([3]);
    expect(task.generateProblem(3, 5)).toEqual({ numbers: [1, 2, 3], total: 6 });
    const { examples: _, ...withoutExamples } = summing();
    expect(() => compileDeclaration(withoutExamples).generateProblem(3, 0)).toThrow(/no example problems/);
  });

  it('reads a CSV dataset with a column per field', () => {
    const task = compileDeclaration(summing());
    expect(task.parseDataset('id,numbers,total\na,"[1, 2]",3\nb,[5],5\n')).toEqual([
      { id: 'a', problem: { numbers: [1, 2], total: 3 } },
      { id: 'b', problem: { numbers: [5], total: 5 } },
    ]);
    expect(() => task.parseDataset('id,numbers,total\na,"[1, x]",3\n')).toThrow(/row 1 column numbers/);
  });

  it('takes user files as the problem when one list of texts is all it needs', () => {
    const task = compileDeclaration(lite());
    expect(
      task.problemFromFiles!([
        { path: 'a.txt', text: 'A.' },
        { path: 'b.txt', text: 'B.' },
      ]),
    ).toEqual({ documents: ['A.', 'B.'] });
    expect(() => task.problemFromFiles!([{ path: 'a.txt', text: 'A.' }])).toThrow(/at least 2/);
    expect(compileDeclaration(summing()).problemFromFiles).toBeUndefined();
  });

  it('checks the params a prompt uses', () => {
    const d = summing() as Editable;
    d.prompts.sum.user = 'Add up {{numbers}} in {{params.language}}.';
    d.schemes.io.operations[0].params = { language: 'French' };
    const task = compileDeclaration(d);
    expect(task.checkParams!('sum', { language: 'French' }, {})).toEqual([]);
    expect(task.checkParams!('sum', {}, {})).toEqual([expect.stringMatching(/^language: .*\{\{params\.language\}\}/)]);
    expect(task.buildPrompt(request('sum', [{}], { language: 'French' }))[0]!.content).toBe('Add up [1, 2, 3] in French.');
  });

  it('defaults noAnswerScore to the worst score the task can give', () => {
    expect(compileDeclaration(lite()).noAnswerScore).toBe(0);
    const exact = { ...summing(), noAnswerScore: undefined, scorers: { exact: { kind: 'exactMatch', expected: 'total' } } };
    expect(compileDeclaration(exact).noAnswerScore).toBe(1);
    expect(compileDeclaration({ ...exact, higherIsBetter: true }).noAnswerScore).toBe(0);
  });

  it('throws a ValidationError with task.<field> paths for a bad declaration', () => {
    try {
      compileDeclaration({ ...summing(), prompts: {} });
      throw new Error('expected a refusal');
    } catch (e) {
      expect(e).toBeInstanceOf(ValidationError);
      expect((e as ValidationError).issues).toEqual(
        expect.arrayContaining([{ path: 'task.prompts', message: 'declare at least 1 prompts' }]),
      );
    }
  });

  it('is resolved once per declaration and looked up again by content', () => {
    const first = resolveTask(summing() as TaskDeclarationInput);
    expect(resolveTask(summing() as TaskDeclarationInput)).toBe(first);
    expect(resolveTask({ ...summing(), id: 'sum-list-2' } as TaskDeclarationInput)).not.toBe(first);
    expect(resolveTask('sorting').id).toBe('sorting');
  });
});

describe('declaration files', () => {
  const dir = mkdtempSync(join(tmpdir(), 'got-decl-'));
  const write = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };
  const yamlInstalled = (() => {
    try {
      createRequire(import.meta.url).resolve('yaml');
      return true;
    } catch {
      return false;
    }
  })();

  it('loads a JSON declaration as the data a run request carries', () => {
    const loaded = loadTaskDeclaration(LITE_PATH);
    expect(loaded).toEqual(lite());
    expect(checkRun({ task: loaded, problem: liteProblem, goo: loaded.schemes.io }).task.id).toBe('doc-merge-lite');
  });

  it('names the file and the field when a declaration file is wrong', () => {
    expect(() => loadTaskDeclaration(write('broken.json', '{"id": '))).toThrow(/broken\.json: not valid JSON/);
    expect(() => loadTaskDeclaration(write('task.txt', '{}'))).toThrow(/expected a \.json, \.yaml or \.yml file/);
    expect(() => loadTaskDeclaration(join(dir, 'missing.json'))).toThrow(/cannot read it: ENOENT/);
    const bad = write('bad.json', JSON.stringify({ ...lite(), higherIsBetter: 'yes' }));
    expect(() => loadTaskDeclaration(bad)).toThrow(/task declaration in .*bad\.json:\n\s+- task\.higherIsBetter/);
  });

  it(`reads YAML with the ${YAML_PACKAGE} package, and says so when it is missing`, () => {
    const yamlText =
      'id: tiny\nhigherIsBetter: true\nproblem:\n  text: { type: string }\nprompts:\n  echo:\n    user: "Repeat {{text}}"\nschemes:\n  io:\n    operations:\n      - { id: echo, type: generate, prompt: echo }\n';
    const path = write('tiny.yaml', yamlText);
    if (yamlInstalled) {
      expect(loadTaskDeclaration(path)).toMatchObject({
        id: 'tiny',
        problem: { text: { type: 'string' } },
        prompts: { echo: { user: 'Repeat {{text}}' } },
      });
      expect(() => parseDeclarationText('a: [1,', 'yaml', 'x.yaml')).toThrow(/x\.yaml: not valid YAML/);
    } else {
      expect(() => loadTaskDeclaration(path)).toThrow(
        new RegExp(`tiny\\.yaml: YAML task files need the "yaml" package \\(npm install ${YAML_PACKAGE.replace('.', '\\.')}`),
      );
    }
  });
});

describe('answer schemas of a declared task (decision 65)', () => {
  const declaring = (parser: Record<string, unknown>) =>
    compileDeclaration({
      ...summing(),
      id: 'shapes',
      prompts: { ...(summing().prompts as object), ask: { user: 'Answer about {{numbers}}.', parser } },
      parser: { kind: 'text' },
    });
  const ask = (parser: Record<string, unknown>) => {
    const task = declaring(parser);
    const req: PromptRequest = { prompt: 'ask', params: {}, thoughts: [{}] };
    return { task, req, schema: task.answerSchema?.(req) };
  };
  const objectShape = {
    type: 'object',
    properties: { verdict: { type: 'string', enum: ['yes', 'no'] }, reasons: { type: 'array', items: { type: 'string' }, maxItems: 3 } },
    required: ['verdict', 'reasons'],
  };

  it('sends a json parser’s object as declared, in strict mode’s terms, and reads the answer that follows it', () => {
    const { task, req, schema } = ask({ kind: 'json', schema: objectShape });
    expect(schema).toEqual({
      name: 'shapes_ask',
      schema: {
        type: 'object',
        properties: { verdict: { type: 'string', enum: ['yes', 'no'] }, reasons: { type: 'array', items: { type: 'string' } } },
        required: ['verdict', 'reasons'],
        additionalProperties: false,
      },
    });
    expect(strictProblems(schema!.schema)).toEqual([]);
    const [thought] = task.parseResponse(req, JSON.stringify({ verdict: 'yes', reasons: ['adds up'] }));
    expect(thought).toMatchObject({ valid: true, state: { output: { verdict: 'yes', reasons: ['adds up'] } } });
    // The bounds stay the parser's to check.
    expect(task.parseResponse(req, JSON.stringify({ verdict: 'yes', reasons: ['a', 'b', 'c', 'd'] }))[0]!.valid).toBe(false);
  });

  it('wraps a list (a json array, a numberList) as the property "answer", which the parser still finds', () => {
    for (const parser of [
      { kind: 'json', schema: { type: 'array', items: { type: 'integer' } } },
      { kind: 'numberList', integers: true },
    ]) {
      const { task, req, schema } = ask(parser);
      expect(schema!.schema).toEqual({
        type: 'object',
        properties: { answer: { type: 'array', items: { type: 'integer' } } },
        required: ['answer'],
        additionalProperties: false,
      });
      expect(task.parseResponse(req, '{"answer": [3, 1, 2]}')[0]).toMatchObject({ valid: true, state: { output: [3, 1, 2] } });
    }
  });

  it('sends none where strict mode cannot say the shape or the parser would not read a JSON answer', () => {
    expect(ask({ kind: 'text' }).schema).toBeUndefined();
    expect(ask({ kind: 'json', tag: 'answer', schema: objectShape }).schema).toBeUndefined();
    expect(ask({ kind: 'json', schema: { ...objectShape, required: ['verdict'] } }).schema).toBeUndefined();
    expect(ask({ kind: 'json', schema: { ...objectShape, additionalProperties: true } }).schema).toBeUndefined();
    expect(ask({ kind: 'json', schema: { type: 'string' } }).schema).toBeUndefined();
  });
});
