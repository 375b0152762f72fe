import { applyDecisions, checkDecisions } from '../../documents/decisions';
import { documentName } from '../../documents/names';
import { reviewMerge } from '../../documents/review';
import type { AnswerReviewer } from '../task';
import type { DocMergeProblem } from './dataset';

/** The sources' display names: their file names, or "document 1", "document 2", ... for texts sent as such. */
export const sourceNames = (problem: DocMergeProblem): string[] => {
  const given = problem.sources?.map((s) => s.name) ?? [];
  return problem.documents.map((_, i) => documentName(given, i));
};

/** A merge reviewed against its sources: provenance per clause and the sources' disagreements (src/documents). */
export const docMergeReviewer: AnswerReviewer<DocMergeProblem> = {
  review: (answer, problem) => ({ review: reviewMerge(problem, answer), documents: sourceNames(problem) }),
  checkDecisions: (review, decisions) => checkDecisions(review.disagreements, decisions),
  apply: (answer, problem, review, decisions) => applyDecisions(answer, review.disagreements, decisions, problem.documents),
};
