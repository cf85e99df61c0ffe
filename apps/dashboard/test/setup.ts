import '@testing-library/jest-dom/vitest';
import { notifications } from '@mantine/notifications';
import { cleanup, configure } from '@testing-library/react';
import { afterEach, vi } from 'vitest';

// findBy*/waitFor give up after 1 s by default: a lazy route rendering Mantine in jsdom took 5 s and more on a
// loaded 2-core machine (with a second suite beside it). One generous default for every query, set here only:
// waiting longer only slows a test that fails anyway, so no test passes a shorter timeout of its own.
configure({ asyncUtilTimeout: 30_000 });

// jsdom lacks the layout APIs Mantine asks for.
Object.defineProperty(window, 'matchMedia', {
  writable: true,
  value: (query: string) => ({
    matches: false,
    media: query,
    onchange: null,
    addListener: () => undefined,
    removeListener: () => undefined,
    addEventListener: () => undefined,
    removeEventListener: () => undefined,
    dispatchEvent: () => false,
  }),
});
class ResizeObserverStub {
  observe() {}
  unobserve() {}
  disconnect() {}
}
window.ResizeObserver = ResizeObserverStub;
window.HTMLElement.prototype.scrollIntoView = () => undefined;
window.scrollTo = () => undefined;

afterEach(() => {
  cleanup();
  // The notifications store is module state: one test's toasts must not show in the next.
  notifications.clean();
  vi.unstubAllGlobals();
  window.localStorage.clear();
});
