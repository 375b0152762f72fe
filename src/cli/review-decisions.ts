import { createInterface } from 'node:readline/promises';
import { documentName } from '../documents/names';
import type { Disagreement, ReviewDecision } from '../documents/types';
import { ValidationError } from '../goo/validate';
import type { PendingReview } from '../run/request';

/** One disagreement as a person reads it: each source's value, and what the merge kept. */
export function describeDisagreement(d: Disagreement, documents: string[]): string {
  const kept = d.kept.length ? d.kept.map((v) => `"${v.text}"`).join(', ') : '(dropped by the merge)';
  return [
    `${d.id}  ${d.topic} (${d.kind})`,
    ...d.values.map((v) => `    ${v.document + 1}. ${documentName(documents, v.document)}: "${v.value.text}"`),
    `    merge keeps: ${kept}`,
  ].join('\n');
}

/**
 * `--choose d1=2` (document 2, as numbered in the listing), `d1=nda2.pdf` (by name) or `d1=text:...`
 * (a value of the person's own) → decisions; a mistake is bad input naming the option.
 */
export function parseChoices(choices: string[], pending: PendingReview): ReviewDecision[] {
  return choices.map((choice) => {
    const eq = choice.indexOf('=');
    const fail = (message: string): never => {
      throw new ValidationError('options', [{ path: '--choose', message: `"${choice}": ${message}` }]);
    };
    if (eq < 1) fail('expected <disagreement>=<document number|file name|text:value>, e.g. d1=2');
    const id = choice.slice(0, eq);
    const value = choice.slice(eq + 1);
    const disagreement = pending.disagreements.find((d) => d.id === id);
    if (!disagreement) fail(`no disagreement "${id}" (the run has ${pending.disagreements.map((d) => d.id).join(', ')})`);
    if (value.startsWith('text:')) return { id, choose: { text: value.slice(5) } };
    const byNumber = /^\d+$/.test(value) ? Number(value) - 1 : pending.documents.indexOf(value);
    if (!disagreement!.values.some((v) => v.document === byNumber))
      fail(
        `no value of "${disagreement!.topic}" in document ${value}; choose one of ${[...new Set(disagreement!.values.map((v) => v.document + 1))].join(', ')}`,
      );
    return { id, choose: { document: byNumber } };
  });
}

/** Asks a person on the terminal for each disagreement: a document's number, Enter to keep the merge's value, or their own text. */
export async function askDecisions(pending: PendingReview, out: NodeJS.WritableStream = process.stderr): Promise<ReviewDecision[]> {
  const rl = createInterface({ input: process.stdin, output: out });
  const decisions: ReviewDecision[] = [];
  try {
    out.write(
      `\nThe sources disagree on ${pending.disagreements.length} term(s). For each: a document's number, Enter to keep what the merge says, or "text:<your value>".\n`,
    );
    for (const d of pending.disagreements) {
      out.write(`\n${describeDisagreement(d, pending.documents)}\n`);
      for (;;) {
        const answer = (await rl.question(`  ${d.id}> `)).trim();
        if (answer === '') break;
        try {
          decisions.push(...parseChoices([`${d.id}=${answer}`], pending));
          break;
        } catch (e) {
          out.write(`  ${e instanceof ValidationError ? e.issues[0]!.message : String(e)}\n`);
        }
      }
    }
  } finally {
    rl.close();
  }
  return decisions;
}
