/**
 * The vocabulary the long-contract generator draws from, written for this project: section topics
 * of a services agreement, clause templates, and the small rewordings that make one data room's
 * contracts differ the way negotiated versions of one template do. `{S}` is the party a clause
 * binds, `{P}` the other one, `{M}` a modal verb, `{O}` one of the topic's objects (qualified, and
 * tied to one workstream of the services), `{N}`, `{K}` and `{X}` numbers.
 */

/** One section topic: its title in two wordings, and what its clauses are about. */
export interface ContractTopic {
  titles: readonly [string, string];
  objects: readonly string[];
  /** Every contract of a data room has it (else only some do). */
  core: boolean;
}

export const CONTRACT_TOPICS: readonly ContractTopic[] = [
  {
    titles: ['Definitions', 'Definitions and Interpretation'],
    objects: ['the defined terms', 'the schedules', 'the order of precedence', 'the headings'],
    core: true,
  },
  {
    titles: ['Services', 'Scope of Services'],
    objects: ['the services', 'the service description', 'the implementation plan', 'the project milestones', 'the service catalogue'],
    core: true,
  },
  {
    titles: ['Term', 'Term of Agreement'],
    objects: ['the initial term', 'each renewal term', 'the commencement date', 'the renewal notice', 'the transition period'],
    core: true,
  },
  {
    titles: ['Fees', 'Fees and Charges'],
    objects: ['the monthly charges', 'the rate card', 'the annual price review', 'the reimbursable expenses', 'the fixed fee'],
    core: true,
  },
  {
    titles: ['Payment', 'Payment Terms'],
    objects: ['each invoice', 'disputed amounts', 'late payment interest', 'the payment schedule', 'the bank details for payment'],
    core: true,
  },
  { titles: ['Taxes', 'Tax Matters'], objects: ['value added tax', 'withholding tax', 'the tax invoices', 'stamp duty'], core: false },
  {
    titles: ['Service Levels', 'Service Level Commitments'],
    objects: ['the availability target', 'the service credits', 'the monthly performance report', 'the incident response times'],
    core: true,
  },
  {
    titles: ['Personnel', 'Key Personnel'],
    objects: [
      'the key personnel',
      'the account manager',
      'the staff vetting checks',
      'the replacement of personnel',
      'the training records',
    ],
    core: false,
  },
  {
    titles: ['Subcontracting', 'Use of Subcontractors'],
    objects: ['any subcontract', 'the list of approved subcontractors', 'the flow-down obligations'],
    core: false,
  },
  {
    titles: ['Change Control', 'Change Control Procedure'],
    objects: ['each change request', 'the impact assessment', 'the change log', 'the change approval board'],
    core: true,
  },
  {
    titles: ['Acceptance', 'Acceptance Testing'],
    objects: ['the acceptance tests', 'the test report', 'the defects found in testing', 'the acceptance certificate'],
    core: false,
  },
  {
    titles: ['Intellectual Property', 'Intellectual Property Rights'],
    objects: ['the background materials', 'the deliverables', 'the licensed software', 'the third-party components', 'the source code'],
    core: true,
  },
  {
    titles: ['Confidentiality', 'Confidential Information'],
    objects: ['the confidential information', 'the trade secrets', 'the disclosure log', 'the copies of confidential documents'],
    core: true,
  },
  {
    titles: ['Data Protection', 'Protection of Personal Data'],
    objects: [
      'the personal data',
      'the data subject requests',
      'the records of processing',
      'any personal data breach',
      'the cross-border transfers',
    ],
    core: true,
  },
  {
    titles: ['Security', 'Information Security'],
    objects: ['the security policy', 'the access credentials', 'the penetration tests', 'the security incidents', 'the encryption keys'],
    core: false,
  },
  {
    titles: ['Warranties', 'Warranties and Representations'],
    objects: ['the warranty period', 'the performance warranty', 'the compliance with specifications', 'the remedial work'],
    core: true,
  },
  {
    titles: ['Indemnities', 'Indemnities and Claims'],
    objects: ['any third-party claim', 'the defence costs', 'the settlement offers', 'the conduct of claims'],
    core: true,
  },
  {
    titles: ['Limitation of Liability', 'Limitation of Liability and Exclusions'],
    objects: ['the liability cap', 'the indirect losses', 'the aggregate liability', 'the excluded losses'],
    core: true,
  },
  {
    titles: ['Insurance', 'Insurance Cover'],
    objects: ['the professional indemnity insurance', 'the public liability insurance', 'the insurance certificates'],
    core: false,
  },
  {
    titles: ['Audit', 'Audit Rights'],
    objects: ['the audit requests', 'the financial records', 'the audit findings', 'the audit costs'],
    core: false,
  },
  {
    titles: ['Business Continuity', 'Business Continuity and Recovery'],
    objects: ['the continuity plan', 'the recovery tests', 'the backup copies', 'the recovery time objective'],
    core: false,
  },
  {
    titles: ['Force Majeure', 'Force Majeure Events'],
    objects: ['any force majeure event', 'the mitigation measures', 'the suspended obligations'],
    core: true,
  },
  {
    titles: ['Termination', 'Termination Rights'],
    objects: ['the termination notice', 'any material breach', 'the cure period', 'the termination for convenience'],
    core: true,
  },
  {
    titles: ['Consequences of Termination', 'Exit and Consequences of Termination'],
    objects: ['the exit assistance', 'the return of materials', 'the final invoice', 'the exit plan'],
    core: true,
  },
  {
    titles: ['Dispute Resolution', 'Dispute Resolution Procedure'],
    objects: ['the escalation meetings', 'the mediation', 'the expert determination', 'the dispute notice'],
    core: true,
  },
  { titles: ['Notices', 'Formal Notices'], objects: ['the written notices', 'the notice address', 'the electronic notices'], core: true },
  { titles: ['Assignment', 'Assignment and Transfer'], objects: ['any assignment', 'any novation', 'the change of control'], core: false },
  {
    titles: ['Anti-Bribery', 'Anti-Bribery and Corruption'],
    objects: ['the gifts and hospitality register', 'the anti-bribery policy', 'the compliance certificate'],
    core: false,
  },
  {
    titles: ['Export Control', 'Export Control Compliance'],
    objects: ['the export licences', 'the controlled items', 'the end-user statements'],
    core: false,
  },
  {
    titles: ['Non-Solicitation', 'Non-Solicitation of Staff'],
    objects: ['the solicitation of employees', 'the recruitment campaigns', 'the non-solicitation period'],
    core: false,
  },
  {
    titles: ['Publicity', 'Publicity and Announcements'],
    objects: ['any press release', 'the use of logos', 'the case studies'],
    core: false,
  },
  {
    titles: ['Entire Agreement', 'Entire Agreement and Amendments'],
    objects: ['the prior arrangements', 'any amendment', 'the side letters'],
    core: true,
  },
  { titles: ['Severability', 'Severability of Provisions'], objects: ['any invalid provision', 'the replacement provision'], core: false },
  {
    titles: ['Governing Law', 'Governing Law and Jurisdiction'],
    objects: ['the applicable law', 'the competent courts', 'the service of process'],
    core: true,
  },
];

/** Clause templates: one sentence each, about one of the topic's objects. */
export const CLAUSE_TEMPLATES: readonly string[] = [
  '{S} {M} maintain {O} in accordance with Schedule {K}.',
  '{S} {M} notify {P} in writing of any change to {O} within {N} days.',
  '{S} {M} review {O} at least once every {N} months and record the outcome of each review.',
  '{S} {M} not amend {O} without the prior written consent of {P}.',
  '{S} {M} bear its own costs in connection with {O} unless clause {X} provides otherwise.',
  '{S} {M} provide {P} with a copy of {O} on request and within {N} business days.',
  'Any disagreement about {O} {M} be referred to the contract review board before either party takes further action.',
  '{S} {M} keep complete and accurate records of {O} for at least {N} years after the end of this agreement.',
  '{S} {M} ensure that {O} comply with all applicable laws and with good industry practice.',
  'Where {O} fail to meet the agreed standard, {S} {M} remedy the failure within {N} days at its own cost.',
  '{P} may reject {O} by written notice stating its reasons within {N} business days of receipt.',
  '{S} {M} appoint a named representative who is responsible for {O} and who attends the quarterly meetings.',
  'The parties {M} settle {O} in good faith before the start of each contract year.',
  'No payment in respect of {O} {M} fall due until {P} has confirmed receipt in writing.',
  '{S} {M} obtain and keep in force every licence and consent required for {O}.',
  '{S} {M} promptly inform {P} of any circumstance that may delay or prevent {O}.',
  'Except as set out in this clause, {S} {M} have no further obligation in relation to {O}.',
  '{S} {M} deliver {O} to {P} in the format described in Schedule {K}.',
  '{P} may suspend its obligations relating to {O} if {S} fails to cure a breach within {N} days of notice.',
  '{S} {M} give {P} reasonable access to its premises and systems so far as needed to verify {O}.',
  'The costs of {O} are capped at {N} percent of the annual charges unless {P} approves a higher amount.',
  '{S} {M} report on the status of {O} in each monthly service report.',
  'Clause {X} applies to {O} as if it were set out in full in this clause.',
  '{S} {M} not rely on {O} for any purpose other than the performance of this agreement.',
  '{S} {M} nominate a deputy who can approve {O} whenever the named representative is absent.',
  'Before {O} takes effect, {S} {M} hold a joint workshop with {P} to walk through its consequences.',
  '{P} may appoint an independent adviser to assess {O}, and {S} {M} cooperate with that adviser.',
  'If {O} is delayed by more than {N} days, {P} may escalate the matter to the steering committee.',
  '{S} {M} translate {O} into every language used at the sites listed in Schedule {K}.',
  '{S} {M} archive {O} in the shared repository and keep the previous versions retrievable.',
  'Neither party may publish {O} or any summary of it without the consent of the other.',
  '{S} {M} benchmark {O} against comparable arrangements in the market every {N} months.',
  '{S} {M} train its staff on {O} before they begin work under this agreement.',
  'A failure to comply with {O} that lasts longer than {N} business days is a material breach.',
  '{S} {M} insure the risks arising from {O} with an insurer of good repute.',
  'Where the law changes in a way that affects {O}, the parties {M} agree the necessary amendments within {N} days.',
  '{S} {M} publish a timetable for {O} and update it whenever a milestone moves.',
  'Responsibility for {O} passes to {P} only once both project managers have signed the handover note.',
  '{S} {M} measure customer satisfaction with {O} twice a year using the survey in Schedule {K}.',
  'Any credit note relating to {O} {M} be issued within {N} days of the month in which it arose.',
  '{P} may request a demonstration of {O} at any reasonable time during the term.',
  '{S} {M} not outsource {O} to a country outside the agreed hosting regions.',
  'Documents relating to {O} {M} be written in plain English and free of undefined abbreviations.',
  '{S} {M} notify the data protection officer of {P} before changing {O}.',
  'The steering committee {M} review {O} at its first meeting after each anniversary of this agreement.',
  '{S} {M} keep a risk register covering {O} and share it with {P} every {N} weeks.',
  'Ownership of any improvement to {O} made jointly by the parties {M} vest in {P}.',
  '{S} {M} give at least {N} days of notice before any planned outage affecting {O}.',
];

/** What qualifies a clause's object, so that clauses about one topic name different things. */
export const QUALIFIERS: readonly string[] = [
  'agreed',
  'annual',
  'current',
  'draft',
  'electronic',
  'final',
  'interim',
  'monthly',
  'original',
  'outstanding',
  'proposed',
  'quarterly',
  'regional',
  'revised',
  'signed',
  'written',
];

/** The parts of the services a clause is about. */
export const WORKSTREAMS: readonly string[] = [
  'billing platform',
  'Leeds data centre',
  'field maintenance programme',
  'customer contact centre',
  'payroll migration',
  'warehouse automation project',
  'network refresh',
  'mobile application',
  'records digitisation',
  'fleet telematics rollout',
  'laboratory information system',
  'cloud hosting environment',
  'security operations centre',
  'procurement portal',
  'facilities helpdesk',
  'training academy',
  'analytics dashboard',
  'identity management service',
  'backup and archive service',
  'supplier onboarding process',
  'energy monitoring scheme',
  'document management system',
  'Bristol distribution hub',
  'translation service',
  'print and mail service',
  'testing laboratory',
  'pension administration',
  'travel booking service',
  'grant management system',
  'asset register',
];

/** Endings a clause may take, making sentences longer and less alike. */
export const CLAUSE_TAILS: readonly string[] = [
  ', save where {P} has agreed otherwise in writing',
  ', and {S} {M} confirm this in writing',
  ', including any update agreed under the change control procedure',
  ', acting reasonably and without undue delay',
  ', at the times set out in the implementation plan',
];

/** Pairs of wordings a negotiated version swaps (either way). */
export const REWORDINGS: readonly (readonly [string, string])[] = [
  [' shall ', ' must '],
  [' in accordance with ', ' as set out in '],
  [' at its own cost', ' at its own expense'],
  [' promptly inform ', ' without delay notify '],
  [' provide ', ' supply '],
  [' ensure that ', ' make sure that '],
  [' complete and accurate ', ' accurate and complete '],
  [' prior written consent ', ' written approval in advance '],
  [' on request ', ' when asked '],
  [' at least once every ', ' no less often than every '],
];

export const CONTRACT_TITLES = [
  'MASTER SERVICES AGREEMENT',
  'SERVICES AGREEMENT',
  'SUPPLY AND SERVICES AGREEMENT',
  'FRAMEWORK AGREEMENT FOR PROFESSIONAL SERVICES',
] as const;

/** The two parties' roles, as the clauses name them. */
export const ROLES: readonly (readonly [string, string])[] = [
  ['the Supplier', 'the Customer'],
  ['the Provider', 'the Client'],
  ['the Contractor', 'the Company'],
];

export const CUSTOMERS = ['Northwind Holdings plc', 'Altamira Health Group', 'Bluecrest Energy SE', 'Kestrel Transport Authority'];

export const SUPPLIERS = [
  'Arden Systems Ltd',
  'Brightwater Consulting LLP',
  'Cedar Point Networks Inc',
  'Delta Forge Engineering',
  'Elmstead Data Services',
  'Foxglove Facilities Ltd',
  'Granite Peak Software',
  'Harrowgate Logistics',
  'Ivybridge Analytics',
  'Juniper Field Services',
];
