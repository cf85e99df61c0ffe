import {
  createTheme,
  DEFAULT_THEME,
  MantineProvider,
  type CSSVariablesResolver,
  type MantineColorsTuple,
} from '@mantine/core';
import { Notifications } from '@mantine/notifications';
import { QueryClientProvider } from '@tanstack/react-query';
import { RouterProvider } from '@tanstack/react-router';
import type { AppRouter } from './router';

// focusRing 'auto': a visible ring on keyboard focus, none on mouse clicks. Shade 8 in the light scheme: white on
// indigo 6 (Mantine's default) and coloured text at shade 6 fall short of WCAG AA's 4.5:1 contrast (axe-core says so
// in the browser suite); shade 8 clears it.
// Green and red, Mantine's lightest, get darker shades 8 and 9 (white on them, and they on their light badges, reach
// 4.5:1); shades 0 to 7 stay Mantine's.
const darker = (name: 'green' | 'red', shade8: string, shade9: string): MantineColorsTuple => {
  const [c0, c1, c2, c3, c4, c5, c6, c7] = DEFAULT_THEME.colors[name];
  return [c0, c1, c2, c3, c4, c5, c6, c7, shade8, shade9];
};
const theme = createTheme({
  primaryColor: 'indigo',
  primaryShade: { light: 8, dark: 8 },
  colors: { green: darker('green', '#237a36', '#1b5e2a'), red: darker('red', '#c62828', '#a51d1d') },
  focusRing: 'auto',
});

// Text that must stay readable: dimmed text at gray 7 (gray 6 is 3.3:1 on white); yellow and orange, the two colours
// no shade of which is readable as text on white, darkened for text and light badges.
const contrast: CSSVariablesResolver = () => ({
  variables: {},
  light: {
    '--mantine-color-dimmed': 'var(--mantine-color-gray-7)',
    '--mantine-color-yellow-light-color': '#7a4f01',
    '--mantine-color-yellow-text': '#7a4f01',
    '--mantine-color-orange-light-color': '#8a3c00',
    '--mantine-color-orange-text': '#8a3c00',
  },
  dark: {},
});

/**
 * The whole app around one router. The colour scheme follows the OS ("auto") and the toggle stores the choice;
 * no ColorSchemeScript, because the Content-Security-Policy allows no inline script.
 */
export function App({ router }: { router: AppRouter }) {
  return (
    <MantineProvider theme={theme} cssVariablesResolver={contrast} defaultColorScheme="auto">
      <Notifications />
      <QueryClientProvider client={router.options.context.queryClient}>
        <RouterProvider router={router} />
      </QueryClientProvider>
    </MantineProvider>
  );
}
