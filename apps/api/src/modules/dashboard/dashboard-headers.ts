import helmet from 'helmet';
import type { RequestHandler } from 'express';

/**
 * Security headers for one transport. No inline script may run (`script-src 'self'`): the app's
 * code, Mantine's colour-scheme script included, comes from files. Styles allow 'unsafe-inline'
 * because Mantine writes its CSS variables into a `<style>` element at run time and its style props
 * become `style` attributes; neither can carry a hash.
 */
function headersFor(https: boolean): RequestHandler {
  return helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        'default-src': ["'self'"],
        'script-src': ["'self'"],
        'script-src-attr': ["'none'"],
        'style-src': ["'self'", "'unsafe-inline'"],
        'img-src': ["'self'", 'data:'],
        'font-src': ["'self'", 'data:'],
        'connect-src': ["'self'"],
        'object-src': ["'none'"],
        'base-uri': ["'self'"],
        'form-action': ["'self'"],
        'frame-ancestors': ["'none'"],
        // Over plain http (a local install) upgrading the page's requests would break every asset.
        ...(https ? { 'upgrade-insecure-requests': [] } : {}),
      },
    },
    // Browsers ignore HSTS over plain http; it is sent only on requests that came over TLS.
    strictTransportSecurity: https,
    xFrameOptions: { action: 'deny' },
  });
}

const overTls = headersFor(true);
const overPlainHttp = headersFor(false);

/** The dashboard's security headers; `req.secure` follows TRUST_PROXY behind a TLS-terminating proxy. */
export const dashboardHeaders: RequestHandler = (req, res, next) =>
  (req.secure ? overTls : overPlainHttp)(req, res, next);
