import { ApiError } from '../app/api-client';

/** A failed request as a person reads it: a title, one sentence, each field's message, the request id. */
interface ProblemText {
  title: string;
  sentence: string;
  fields: { label: string; message: string }[];
  requestId: string | undefined;
}

// When the problem has no detail (or one that is not a sentence), what its status means to the person asking.
const BY_STATUS: Record<number, string> = {
  400: 'The request was not accepted as sent.',
  401: 'You are not signed in, or the credentials were not accepted.',
  403: 'You are not allowed to do this.',
  404: 'It no longer exists, or you cannot see it.',
  409: 'It conflicts with what is already there.',
  413: 'What was sent is too large.',
  422: 'The request was not accepted as sent.',
  429: 'Too many requests: wait a moment and try again.',
};
// A heading for a problem whose title says no more than its detail (the API's title is its code's sentence, and a
// detail given without its own message repeats it): the sentence then stands once, under this.
const HEADING_BY_STATUS: Record<number, string> = {
  400: 'Not accepted',
  401: 'Not signed in',
  403: 'Not allowed',
  404: 'Not found',
  409: 'Conflict',
  413: 'Too large',
  422: 'Not accepted',
  429: 'Too many requests',
};
const GENERIC = 'The request did not complete. Try again; if it keeps failing, tell your administrator.';

// A detail is shown only when it reads as a sentence: never an upstream's JSON or an HTML error page.
const readable = (text: string | undefined): text is string =>
  typeof text === 'string' && text.trim() !== '' && !/^\s*[[{<]/.test(text);

const sentenceOf = (status: number) => BY_STATUS[status] ?? (status >= 500 ? GENERIC : BY_STATUS[400]!);

/** `rules.0.target_url` → `rules 1 target url`: a wire path in words; the whole body is no field at all. */
const labelOf = (field: string) =>
  field
    .split(/[.[\]/]+/)
    .filter((part) => part !== '' && part !== 'body')
    .map((part) => (/^\d+$/.test(part) ? String(Number(part) + 1) : part.replace(/_/g, ' ')))
    .join(' ');

const requestIdOf = (error: unknown): string | undefined => {
  if (typeof error !== 'object' || error === null) return undefined;
  const record = error as Record<string, unknown>;
  const id = record.request_id ?? record.requestId;
  return typeof id === 'string' && id !== '' ? id : undefined;
};

/** The words for any thrown value: a problem's title and detail, or a generic sentence for anything else. */
export function problemText(error: unknown): ProblemText {
  if (!(error instanceof ApiError)) {
    return { title: 'Something went wrong', sentence: GENERIC, fields: [], requestId: requestIdOf(error) };
  }
  const { problem } = error;
  const fields = (problem.errors ?? [])
    .filter((e) => readable(e.message))
    .map((e) => ({ label: labelOf(String(e.field ?? '')), message: e.message }));
  const sentence = readable(problem.detail) ? problem.detail : sentenceOf(problem.status);
  const ownTitle = readable(problem.title) && problem.title.trim() !== sentence.trim();
  return {
    title: ownTitle ? problem.title : (HEADING_BY_STATUS[problem.status] ?? 'Something went wrong'),
    sentence,
    fields,
    requestId: requestIdOf(problem),
  };
}
