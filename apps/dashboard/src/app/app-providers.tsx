import { createTheme, MantineProvider } from '@mantine/core';
import { Notifications } from '@mantine/notifications';
import { QueryClientProvider } from '@tanstack/react-query';
import { RouterProvider } from '@tanstack/react-router';
import type { AppRouter } from './router';

// focusRing 'auto': a visible ring on keyboard focus, none on mouse clicks.
const theme = createTheme({ primaryColor: 'indigo', focusRing: 'auto' });

/**
 * The whole app around one router. The colour scheme follows the OS ("auto") and the toggle stores the choice;
 * no ColorSchemeScript, because the Content-Security-Policy allows no inline script.
 */
export function App({ router }: { router: AppRouter }) {
  return (
    <MantineProvider theme={theme} defaultColorScheme="auto">
      <Notifications />
      <QueryClientProvider client={router.options.context.queryClient}>
        <RouterProvider router={router} />
      </QueryClientProvider>
    </MantineProvider>
  );
}
