import { MantineProvider } from '@mantine/core';
import { ProblemError } from '@relay/client';
import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { ProblemAlert } from '../src/components/problem-alert';
import { problemText } from '../src/components/problem-text';

const shown = (error: unknown) => {
  render(
    <MantineProvider>
      <ProblemAlert error={error} />
    </MantineProvider>,
  );
  return screen.getByRole('alert');
};

describe('an API problem in words', () => {
  it('shows a 409 as its title and its sentence, never the document', () => {
    const taken = new ProblemError({
      title: 'Conflict',
      status: 409,
      code: 'rule_name_taken',
      detail: 'A rule named "stripe" already exists.',
      request_id: 'req-409',
    });
    const alert = shown(taken);
    expect(alert).toHaveTextContent('Conflict');
    expect(alert).toHaveTextContent('A rule named "stripe" already exists.');
    expect(alert).toHaveTextContent('Request id: req-409');
    expect(alert.textContent).not.toMatch(/[{}]/);
  });

  it('says a sentence the title repeats once, under a heading for the status', () => {
    const said = 'Another rule of this organization has that name.';
    const repeated = new ProblemError({ title: said, status: 409, code: 'rule_name_taken', detail: said });
    const alert = shown(repeated);
    expect(alert).toHaveTextContent('Conflict');
    expect(alert.textContent.split(said)).toHaveLength(2);
  });

  it("lists each field's message in words", () => {
    const invalid = new ProblemError({
      title: 'Validation failed',
      status: 400,
      code: 'validation_failed',
      detail: 'The request is not valid.',
      errors: [
        { field: 'body.target_url', message: 'must be an https URL' },
        { field: 'destinations.0.url', message: 'is required' },
        { field: '', message: 'at least one field is needed' },
      ],
    });
    const items = [...shown(invalid).querySelectorAll('li')].map((li) => li.textContent);
    expect(items).toEqual([
      'target url: must be an https URL',
      'destinations 1 url: is required',
      'at least one field is needed',
    ]);
  });

  it('gives a sentence by status when the detail is missing or is no sentence (JSON, HTML)', () => {
    expect(problemText(new ProblemError({ title: 'Conflict', status: 409, code: 'x' })).sentence).toBe(
      'It conflicts with what is already there.',
    );
    const upstream = new ProblemError({ title: 'Bad Gateway', status: 502, code: 'http_502', detail: '{"a":1}' });
    expect(problemText(upstream).sentence).toMatch(/^The request did not complete/);
    const html = new ProblemError({ title: '<html>', status: 500, code: 'http_500', detail: '<h1>oops</h1>' });
    expect(problemText(html)).toMatchObject({ title: 'Something went wrong' });
    expect(problemText(html).sentence).not.toContain('<');
  });

  it('shows anything that is no problem as a generic sentence, with the request id when it has one', () => {
    const alert = shown(Object.assign(new Error('{"raw":"json"}'), { request_id: 'req-1' }));
    expect(alert).toHaveTextContent('Something went wrong');
    expect(alert).toHaveTextContent('The request did not complete.');
    expect(alert).toHaveTextContent('Request id: req-1');
    expect(alert.textContent).not.toContain('{');
    expect(problemText(new TypeError('Failed to fetch'))).toMatchObject({ requestId: undefined, fields: [] });
  });
});
