import { AppError } from '../errors.js';
import type { ErrorMapping } from '../listener/error-mapping.js';
import { type PageDeps, sendPage } from './page-context.js';
import { pageHeaders } from './page-headers.js';
import { renderMessagePage } from './pages/layout.js';

/**
 * The page's errors: the listeners' one mapping (listener/error-mapping.ts) with an HTML
 * renderer. A page in words for each kind of failure, never its details; the error's own
 * headers kept (a 503's Retry-After, as every 503 of the service: listener/failure.ts).
 */
export function pageErrorMapping(tls: boolean, appHome: PageDeps['appHomeUrl']): ErrorMapping {
  const signedOut = { appHome };
  const pageOf = (error: AppError): string => {
    if (error.code === 'not_found') {
      return renderMessagePage(
        'No such page',
        ['Open the app and choose Resources, then Export (API, CSV).'],
        signedOut,
      );
    }
    if (error.code === 'unavailable') {
      return renderMessagePage('Try again in a moment', ['The service is unavailable just now.'], signedOut);
    }
    if (error.status >= 500) {
      return renderMessagePage('Something went wrong', ['Nothing more is known. Try again later.'], signedOut);
    }
    return renderMessagePage('This request cannot be answered', ['Go back and try again.'], signedOut);
  };
  return {
    headers: pageHeaders(tls),
    render: (reply, error) => sendPage(reply.headers(error.headers), error.status, pageOf(error)),
    notFound: () => new AppError('not_found', 'No such page.'),
    // A browser reads the status, no contract fixes it: 415 for a form that is not urlencoded.
    keepFrameworkStatus: true,
    failureLogged: 'app page request failed',
  };
}
