/**
 * Reading answers as real models write them (decision 28): prose, markdown and code fences around
 * the answer, the input echoed before or after it, sloppy JSON. Shared by every task's parser.
 */

/** What the words just before a candidate answer call it. */
export type Label = 'output' | 'input' | 'none';

/** One candidate answer found in a text: its value, where it is, and what it is labelled as. */
export interface Candidate<T> {
  value: T;
  start: number;
  end: number;
  label: Label;
  /** An exact copy of something the prompt gave as input. */
  echo: boolean;
  /** It ends with a closing mark of its own (`]`, `}`): an answer cut after `end` did not cut it. */
  closed?: boolean;
}

// Words by which models announce their answer ("Output:", "the sorted list is", "Set 1 ∩ Set 2 =").
const OUTPUT_WORDS =
  /\b(?:output|answer|result|final|sorted|merged|combined|joined|corrected|fixed|intersection|common|shared|both|sum)\b|∩/i;
// Names the prompts give their inputs, when a label ends with one ("Input:", "Set 2 =", "the attempt was").
const INPUT_LABEL =
  /\b(?:input|original|attempt|unsorted|set\s*[12]|first\s+set|second\s+set|list\s+[ab]|tally\s+[ab]|wrong\s+sum|given)(?:\s+(?:list|set|tally|numbers))?(?:\s+(?:is|was|were|are))?\s*[:=]?$/i;

/** What a label (the words before a candidate) calls it: an input when it ends with an input's name, an output when it announces one. */
export function labelOf(words: string): Label {
  const trimmed = words.replace(/[\s*_`(#>|-]+$/u, '');
  const output = OUTPUT_WORDS.test(trimmed);
  if (!output && INPUT_LABEL.test(trimmed)) return 'input';
  return output ? 'output' : 'none';
}

const FENCE_LINE = /^\s*```/;

/**
 * The label of the candidate at `start`: the words since the line's start (or the previous
 * candidate on the line); for a candidate alone on its line, a previous line ending with ':'
 * ("**Output:**" then the list on the next line).
 */
export function labelAt(text: string, start: number, previous?: { end: number; label: Label }): Label {
  const lineStart = text.lastIndexOf('\n', start - 1) + 1;
  const sameLine = previous !== undefined && previous.end > lineStart;
  const words = text.slice(sameLine ? previous.end : lineStart, start);
  if (/\p{L}/u.test(words)) return labelOf(words);
  if (sameLine) return previous.label;
  const before = text.slice(0, lineStart).split('\n').reverse();
  const line = before.find((l) => l.trim() !== '' && !FENCE_LINE.test(l));
  const bare = line?.replace(/[\s*_`]+$/u, '') ?? '';
  return bare.endsWith(':') ? labelOf(bare) : 'none';
}

/**
 * The answer among the candidates: a candidate labelled as the output beats an unlabelled one, the
 * last one wins among equals, and a copy of the input counts only when nothing else is there.
 * Candidates labelled as the input never count. Undefined when no candidate counts.
 */
export function pickAnswer<T>(candidates: readonly Candidate<T>[]): Candidate<T> | undefined {
  const rank = (c: Candidate<T>) => {
    if (c.label === 'input') return -1;
    return (c.echo ? 0 : 2) + (c.label === 'output' ? 1 : 0);
  };
  let best: Candidate<T> | undefined;
  for (const c of candidates) if (rank(c) >= 0 && (!best || rank(c) >= rank(best))) best = c;
  return best;
}

/**
 * Why no candidate counted, for the thought's error: `what` names the answer the prompt asked for
 * and `example` shows its form ("no list of numbers in the answer; expected a list such as [1, 2]").
 */
export function noAnswerError(candidates: readonly Candidate<unknown>[], what: string, example: string): string {
  return candidates.length
    ? `the answer only restates the input (what it holds is labelled or copied as the input); expected ${example}`
    : `no ${what} in the answer; expected ${example}`;
}

/**
 * JSON as models write it: tried as is, then with smart double quotes made plain and trailing
 * commas dropped, then as a Python literal (single quotes, True/False/None), then with bare keys
 * quoted. Undefined when none of these parses.
 */
export function looseJson(text: string): unknown {
  const attempts = [
    (t: string) => t,
    (t: string) => t.replace(/[\u201c\u201d\u201e\u201f]/g, '"').replace(/,\s*([}\]])/g, '$1'),
    (t: string) =>
      t
        .replace(/[\u2018\u2019'](?=\s*[:,}\]])|(?<=[{[,:]\s*)[\u2018\u2019']/g, '"')
        .replace(/\bTrue\b/g, 'true')
        .replace(/\bFalse\b/g, 'false')
        .replace(/\bNone\b/g, 'null'),
    (t: string) => t.replace(/([{,]\s*)([\p{L}_][\p{L}\p{N}_ .'-]*?)\s*:/gu, '$1"$2":'),
  ];
  let t = text;
  for (const attempt of attempts) {
    t = attempt(t);
    try {
      return JSON.parse(t);
    } catch {
      // the next repair
    }
  }
  return undefined;
}

/**
 * The balanced `{…}` and `[…]` spans of a text that are not inside another one, in order (strings
 * in double quotes may hold brackets). Unclosed spans are left out: a cut-off answer has none.
 */
export function bracketSpans(text: string): { start: number; end: number }[] {
  return scanBrackets(text).spans;
}

/** One pass over a text's brackets: the balanced outermost spans, and how many brackets are still open at its end. */
function scanBrackets(text: string): { spans: { start: number; end: number }[]; openAtEnd: number } {
  const spans: { start: number; end: number }[] = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (inString) {
      if (ch === '\\') i++;
      else if (ch === '"' || ch === '\n') inString = false;
      continue;
    }
    if (ch === '"' && depth > 0) inString = true;
    else if (ch === '{' || ch === '[') {
      if (depth++ === 0) start = i;
    } else if ((ch === '}' || ch === ']') && depth > 0 && --depth === 0) spans.push({ start, end: i + 1 });
  }
  return { spans, openAtEnd: depth };
}

/** Whether an answer opens by declining the task ("I'm sorry, but I can't…", "As an AI…"). */
export function isRefusal(text: string): boolean {
  return /^\W*(?:I['\u2019]m sorry|I am sorry|sorry\b|I apologi[sz]e|unfortunately\b|I can(?:not|['\u2019]t)\b|I['\u2019]m (?:not able|unable)|I am (?:not able|unable)|as an AI\b)/i.test(
    text,
  );
}

/** The text inside a code fence when the whole answer is one fenced block; the text itself otherwise. */
export function unfence(text: string): string {
  const match = /^\s*```[\w-]*[^\S\n]*\n([\s\S]*?)\n?```\s*$/.exec(text);
  return match ? match[1]! : text;
}

/**
 * Whether an answer cut at max tokens had finished the structure it was read from before the cut
 * (decision 66): it closed (`end`, from the task's reader), no bracket of the text is left open (an
 * object around it, as a split's `{"List 1": [..], ...` cut before its `}`, or a later list, perhaps
 * the real answer, that the cut broke), and no tag opened after it is left open (a second `<Merged>`).
 */
export function closedBeforeCut(text: string, end: number | undefined): boolean {
  if (end === undefined || end <= 0 || end > text.length) return false;
  if (scanBrackets(text).openAtEnd > 0) return false;
  const tail = text.slice(end);
  return [...tail.matchAll(/<([A-Za-z][\w-]*)>/g)].every((m) => tail.slice(m.index).toLowerCase().includes(`</${m[1]!.toLowerCase()}>`));
}
