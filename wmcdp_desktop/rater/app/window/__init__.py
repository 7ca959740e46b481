"""The window: its wiring, menus, status bar, worker threads, settings, dialogs and welcome screen."""
