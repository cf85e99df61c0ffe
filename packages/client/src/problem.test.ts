import { dataOf, problemOf, ProblemError } from './problem';

const problemResponse = (body: unknown, status = 422, statusText = 'Unprocessable Entity') =>
  new Response(typeof body === 'string' ? body : JSON.stringify(body), {
    status,
    statusText,
    headers: { 'content-type': 'application/problem+json' },
  });

describe('problemOf', () => {
  it('types a problem document, field errors and extensions included', async () => {
    const error = await problemOf(
      problemResponse({
        type: 'urn:webhook-relay:problem:validation_failed',
        title: 'The request is not valid.',
        status: 400,
        detail: 'per_page: too big',
        code: 'validation_failed',
        errors: [{ field: 'per_page', message: 'too big' }],
        request_id: 'r1',
      }),
    );
    expect(error).toBeInstanceOf(ProblemError);
    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({ status: 400, code: 'validation_failed', title: 'The request is not valid.' });
    expect(error.message).toBe('per_page: too big');
    expect(error.errors).toEqual([{ field: 'per_page', message: 'too big' }]);
    expect(error.problem.request_id).toBe('r1');
  });

  it('uses a body the client already parsed', async () => {
    const response = problemResponse('ignored');
    const error = await problemOf(response, { title: 'Nope', status: 403, code: 'forbidden' });
    expect(error).toMatchObject({ status: 403, code: 'forbidden', title: 'Nope', detail: undefined, errors: [] });
    expect(error.message).toBe('Nope');
  });

  it('makes a problem of an answer that is none (a proxy error page)', async () => {
    const error = await problemOf(new Response('<h1>Bad gateway</h1>', { status: 502, statusText: 'Bad Gateway' }));
    expect(error).toMatchObject({ status: 502, code: 'http_502', title: 'Bad Gateway' });
    const bare = await problemOf(new Response(null, { status: 500 }));
    expect(bare).toMatchObject({ status: 500, code: 'http_500', title: 'HTTP 500' });
  });
});

describe('dataOf', () => {
  it('answers the data of a 2xx and throws the problem of anything else', async () => {
    const ok = { data: { id: 'x' }, response: new Response('{}', { status: 200 }) };
    await expect(dataOf(Promise.resolve(ok))).resolves.toEqual({ id: 'x' });
    const failed = {
      error: { title: 'No such resource.', status: 404, code: 'not_found', detail: 'No such event.' },
      response: new Response(null, { status: 404 }),
    };
    await expect(dataOf(Promise.resolve(failed))).rejects.toMatchObject({
      code: 'not_found',
      detail: 'No such event.',
    });
  });
});
