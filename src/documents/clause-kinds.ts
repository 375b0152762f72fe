/**
 * What a contract clause is about (its kind: the parties, governing law, a breach fee, ...), read
 * from its words and its heading. Versions of one agreement state the same term in other words
 * ("No unveiling without explicit authorization" / "No exposure without prior consensus"), which
 * word overlap alone does not pair, and a clause's place differs from version to version; its kind
 * does not. The clause-by-clause merge aligns clauses of one kind (decision 97). Pure.
 *
 * Kinds are tried in order, the specific before the general: a clause about "both parties and any
 * successors" is about successors, not the parties. A kind marked `weak` is taken from the clause's
 * words only when its heading names no kind (a purpose stated "to safeguard classified data during
 * talks" under "Purpose" is the purpose, not a confidentiality obligation).
 */

export interface ClauseKind {
  id: string;
  label: string;
}

interface Rule extends ClauseKind {
  words: RegExp;
  weak?: true;
}

const RULES: readonly Rule[] = [
  {
    id: 'parties',
    label: 'Parties',
    words:
      /\bby and between\b|\bentered into\b|^(?:this|the)?[^.]{0,80}\b(?:agreement|nda|contract)\b[^.]{0,60}\b(?:is|are) (?:made )?between\b/i,
  },
  {
    id: 'amendment',
    label: 'Amendments',
    words: /\bamend|\bmodif(?:y|ied|ication)|\bvariation|\bchanges? to (?:this|the) (?:agreement|contract)/i,
  },
  {
    id: 'entire',
    label: 'Entire Agreement',
    words:
      /\b(?:entire|complete|sole|whole|full)\b[^.]{0,40}\b(?:agreement|accord|understanding|contract)|\bsupersede|\boverrul|prior (?:agreements|understandings)|previous related|\ball (?:related|prior|previous) agreements/i,
  },
  { id: 'waiver', label: 'Waiver', words: /\bwaive/i },
  { id: 'severability', label: 'Severability', words: /\bseverab|\bsever(?:ed)?\b|\binvalid\b[^.]*\bremain/i },
  { id: 'assignment', label: 'Assignment', words: /\bassign(?:ment)?\b(?! and)|\btransfer (?:this|the|its) (?:agreement|rights)/i },
  { id: 'successors', label: 'Successors', words: /\bsuccessor|\bassigns\b|\bheirs\b/i },
  { id: 'notices', label: 'Notices', words: /\bnotices?\b[^.]{0,40}\b(?:in writing|delivered|sent|address)/i },
  {
    id: 'survival',
    label: 'Survival',
    words: /\bsurviv|\bpersist|post-termination|after (?:the )?(?:termination|expiry|end)|beyond (?:the )?(?:term|termination)/i,
  },
  { id: 'nonCompete', label: 'Non-Competition', words: /\bcompet/i },
  { id: 'nonSolicit', label: 'Non-Solicitation', words: /\bsolicit|\bpoach|\bhire\b/i },
  {
    id: 'remedies',
    label: 'Remedies for Breach',
    words:
      /\bbreach|\bpenalt|\binfring|\btransgression|\bviolation|\bfine\b|\binjunct|\bliquidated|\bremed(?:y|ies)|per (?:incident|occurrence)/i,
  },
  { id: 'liability', label: 'Liability', words: /\bliabilit|\bindemn|\bnot (?:be )?liable/i },
  { id: 'disputes', label: 'Disputes', words: /\bdisput|\bmediat|\barbitrat/i },
  { id: 'law', label: 'Governing Law', words: /\bgovern(?:ed|ing)\b|\blaws?\b(?! firm)|\bjurisdiction|\blegal framework|\bcourts? of/i },
  {
    id: 'exclusions',
    label: 'Exclusions',
    words:
      /\bexclu(?:d|sion)|\bnot (?:be )?(?:classified|considered|deemed|treated)\b|does not (?:include|apply)|\bpublic(?:ly)? (?:known|available|domain)|already (?:known|in)|independently developed/i,
  },
  { id: 'return', label: 'Return of Information', words: /\breturn|\bdestr(?:oy|uction)|\bdelet/i },
  { id: 'warranty', label: 'Warranty', words: /\bwarrant/i },
  { id: 'ip', label: 'Intellectual Property', words: /\bintellectual property|\binventions?\b|\bcopyright/i },
  {
    id: 'contractor',
    label: 'Independent Contractor',
    words: /\bindependent contractor|\bnot an employee|\bbenefits\b[^.]{0,40}\bemployment/i,
  },
  {
    id: 'term',
    label: 'Term and Termination',
    words: /\bterminat|\bexpir|\bin (?:force|effect)\b|\bvalid (?:for|until)|\bduration\b|\bremain(?:s)? (?:valid|in)|\bterm of\b/i,
  },
  { id: 'signature', label: 'Signatures', words: /\bsign(?:ed|ing|ature|atories)?\b|\bendorse|\bexecuted\b|\bwitness|\battest/i },
  { id: 'payment', label: 'Payment', words: /\bpay(?:ment|able|s)?\b|\binvoice|\bcompensat|\bsalary|\bprice\b|\bpricing\b/i },
  {
    id: 'use',
    label: 'Use of Information',
    words:
      /\b(?:use|employ|utili[sz]e|apply)\w*\b[^.]{0,60}\b(?:solely|only|strictly|exclusively)\b|\b(?:solely|only|strictly|exclusively)\b[^.]{0,30}\b(?:use|employ|utili[sz]e)|\bfor (?:the|any) (?:agreed|disclosed|stated|permitted) purpose/i,
  },
  {
    id: 'access',
    label: 'Access to Information',
    words: /need to know|\brestrict\w* access|\baccess\b[^.]{0,40}\b(?:necessary|employees|personnel|representatives)/i,
  },
  {
    id: 'definition',
    label: 'Confidential Information',
    words:
      /\b(?:includes?|means|defined as|consists? of|covers?)\b[^.]{0,80}\b(?:information|data|material)|confidential information\W{0,3}(?:includes|means|is defined|:)/i,
  },
  { id: 'parties', label: 'Parties', words: /\bbetween\b|\bby and\b|\binvolves\b|\bentered into\b|\bthe parties\b(?! and)/i },
  {
    id: 'purpose',
    label: 'Purpose',
    words: /\bpurpose\b|\baim\b|\bin connection with\b|\bdiscussions?\b|\btalks\b|\bdialogues?\b|\bnegotiations?\b|\bevaluat/i,
  },
  {
    id: 'nonDisclosure',
    label: 'Non-Disclosure',
    words: /\bdisclos|\bunveil|\bexpos|\breveal|\bdivulg|\bconfidential|\bsecre|\bsafeguard|\bprotect|\bauthori[sz]/i,
    weak: true,
  },
  { id: 'services', label: 'Services', words: /\bservices?\b|\bduties\b|\bscope of\b|\bdeliver/i, weak: true },
];

/** Words that name a kind in a heading only ("Specification of Protected Information"), tried before the clause rules. */
const HEADING_RULES: readonly Rule[] = [
  {
    id: 'definition',
    label: 'Confidential Information',
    words:
      /\bdefinition|\bspecification|\bcategori[sz]|\bprotected information|\bsensitive (?:data|information)|^confidential information$/i,
  },
  { id: 'purpose', label: 'Purpose', words: /\bobjective|\bpurpose|\baim\b|\bbackground|\brecitals?\b/i },
  { id: 'parties', label: 'Parties', words: /\bparties\b|\bentities\b/i },
  { id: 'remedies', label: 'Remedies for Breach', words: /\brepercussion|\bnon-?compliance|\bconsequence|\bramification/i },
  { id: 'law', label: 'Governing Law', words: /\bjuridic|\blegal reference|\bapplicable law/i },
  { id: 'signature', label: 'Signatures', words: /\bratif|\battestation|\bexecution\b/i },
];

const DEFINITION_HEADING = HEADING_RULES[0]!;

const BY_ID = new Map(RULES.map((r) => [r.id, r]));

const asKind = ({ id, label }: Rule): ClauseKind => ({ id, label });

/** The kind of a heading ("Governing Law", "Term and Termination"), when its words name one. */
function headingKind(heading: string | undefined): ClauseKind | undefined {
  if (!heading) return undefined;
  const rule = HEADING_RULES.find((r) => r.words.test(heading)) ?? RULES.find((r) => !r.weak && r.words.test(heading));
  return rule ? asKind(rule) : undefined;
}

/**
 * A clause's kind: the first specific kind its words name; else its heading's; else a general one
 * its words name (`weak`); undefined when nothing does.
 */
export function clauseKind(text: string, heading?: string): ClauseKind | undefined {
  // Items listed under a definition's heading ("Specification of Protected Information") are parts of it.
  const listed = heading && DEFINITION_HEADING.words.test(heading);
  if (listed) return asKind(DEFINITION_HEADING);
  const strong = RULES.find((r) => !r.weak && r.words.test(text));
  if (strong) return asKind(strong);
  const fromHeading = headingKind(heading);
  if (fromHeading) return fromHeading;
  const weak = RULES.find((r) => r.weak && r.words.test(text));
  return weak ? asKind(weak) : undefined;
}

/** A kind's label by its id. */
export const kindLabel = (id: string): string | undefined => BY_ID.get(id)?.label;
