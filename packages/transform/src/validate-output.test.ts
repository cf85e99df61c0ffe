// The checked output's request reads, serialises and compares as the plain object it was, its body parsed from the
// sent text only when read.
import { validateOutput } from './validate-output';

describe('validateOutput', () => {
  const output = {
    meta: { headers: { 'x-a': '1' }, path: '/p', query: { q: 'v' } },
    bodyJson: '{"text":"hi","n":[1]}',
  };

  it('parses the body on its first read only, and reads as a plain property', () => {
    const parse = jest.spyOn(JSON, 'parse');
    try {
      const checked = validateOutput(output, 1024);
      expect(checked.ok).toBe(true);
      if (!checked.ok) return;
      expect(parse).not.toHaveBeenCalled();
      expect(checked.request.body).toEqual({ text: 'hi', n: [1] });
      expect(checked.request.body).toBe(checked.request.body);
      expect(parse).toHaveBeenCalledTimes(1);
      expect(checked.bodyJson).toBe(output.bodyJson);
      expect(JSON.stringify(checked.request)).toBe(
        '{"body":{"text":"hi","n":[1]},"headers":{"x-a":"1"},"path":"/p","query":{"q":"v"}}',
      );
      expect(checked.request).toEqual({
        body: { text: 'hi', n: [1] },
        headers: { 'x-a': '1' },
        path: '/p',
        query: { q: 'v' },
      });
      checked.request.body = { other: true };
      expect(checked.request.body).toEqual({ other: true });
    } finally {
      parse.mockRestore();
    }
  });

  it('still refuses a body over the size limit without parsing it', () => {
    expect(validateOutput(output, 10)).toMatchObject({ ok: false, error: { cause: 'too_large' } });
  });
});
