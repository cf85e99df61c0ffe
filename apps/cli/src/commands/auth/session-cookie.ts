/**
 * The relay's session cookie from a login answer's Set-Cookie headers: the `name=value` pair to send back and
 * when it expires (Max-Age wins over Expires, as in browsers). Undefined when the answer set no cookie.
 */
export function sessionCookieOf(
  setCookies: string[],
  now: Date,
): { cookie: string; expiresAt: string | undefined } | undefined {
  const session = setCookies.find((c) => /^(__Host-)?relay_session=/i.test(c.trim())) ?? setCookies[0];
  if (!session) return undefined;
  const [pair, ...attributes] = session.split(';').map((part) => part.trim());
  let expiresAt: string | undefined;
  for (const attribute of attributes) {
    const [name = '', value = ''] = attribute.split('=');
    if (name.toLowerCase() === 'max-age' && /^-?\d+$/.test(value))
      expiresAt = new Date(now.getTime() + Number(value) * 1000).toISOString();
    else if (name.toLowerCase() === 'expires' && !expiresAt && !Number.isNaN(Date.parse(value)))
      expiresAt = new Date(value).toISOString();
  }
  return { cookie: pair!, expiresAt };
}
