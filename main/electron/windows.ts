// The main window (Pending, History, Grants, Tasks, Keys, Settings) and one pop-up per
// pending prompt: always on top but not focused (it never takes the keyboard from another
// app), closed as soon as the prompt is resolved.
import { BrowserWindow, screen } from 'electron';
import type { Prompt } from '../contract/approver';
import { appUrl, popupUrl } from './app-protocol';
import { secureWebPreferences } from './hardening';
import { visible } from '../../shared/display-text';

/** More pop-ups than this would bury the desktop; the rest wait in the main window. */
const MAX_POPUPS = 4;

export class Windows {
  private main: BrowserWindow | null = null;
  private readonly popups = new Map<string, BrowserWindow>();
  /** Pop-ups the user closed without answering: the prompt stays in Pending, no new pop-up. */
  private readonly dismissed = new Set<string>();
  quitting = false;

  constructor(private readonly preload: string) {}

  all(): BrowserWindow[] {
    return [...(this.main && !this.main.isDestroyed() ? [this.main] : []), ...this.popups.values()];
  }

  showMain(view?: string): void {
    if (!this.main || this.main.isDestroyed()) {
      this.main = new BrowserWindow({
        width: 1180,
        height: 780,
        minWidth: 760,
        minHeight: 500,
        title: 'Airlock',
        show: false,
        autoHideMenuBar: true,
        webPreferences: secureWebPreferences(this.preload),
      });
      // Closing the window keeps the tray app (and the agent) running.
      this.main.on('close', (e) => {
        if (!this.quitting) {
          e.preventDefault();
          this.main?.hide();
        }
      });
      this.main.once('ready-to-show', () => this.main?.show());
      void this.main.loadURL(appUrl(view ? { view } : {}));
      return;
    }
    if (view) void this.main.loadURL(appUrl({ view }));
    this.main.show();
    this.main.focus();
  }

  openPrompt(p: Prompt): void {
    if (this.popups.has(p.id) || this.dismissed.has(p.id) || this.popups.size >= MAX_POPUPS) return;
    const area = screen.getPrimaryDisplay().workArea;
    // Small on purpose (issue 11): the card keeps its buttons visible (sticky) and the
    // literal command first, so 480×640 is enough and covers less of the user's work.
    const width = 480;
    const height = 640;
    const offset = this.popups.size * 28;
    const win = new BrowserWindow({
      width,
      height: Math.min(height, area.height - 40),
      x: Math.round(area.x + (area.width - width) / 2 + offset),
      y: Math.round(area.y + 40 + offset),
      // The summary is the agent's text: no bidi override may turn the title around.
      title: visible(`Airlock — ${p.action}: ${p.summary}`).slice(0, 120),
      alwaysOnTop: true,
      show: false,
      minimizable: false,
      maximizable: false,
      fullscreenable: false,
      autoHideMenuBar: true,
      webPreferences: secureWebPreferences(this.preload),
    });
    win.setAlwaysOnTop(true, 'floating');
    win.setVisibleOnAllWorkspaces(true);
    // Shown on top but never focused (red team of keystroke binding): show() + focus() took
    // the keyboard from the app the human was typing in, so their next letters ("…for
    // some…") reached the card once its half second had passed. Inactive, keys stay where
    // the human is typing; answering starts with a click on the pop-up, whose focus event
    // re-arms the card's input guard (app/src/views/pending/use-input-guard.ts), so that
    // first click decides nothing either. A hidden window takes no input: nothing counts
    // before the window is on screen.
    win.once('ready-to-show', () => win.showInactive());
    win.on('closed', () => {
      // Still listed means the user closed it, not closePrompt() after an answer.
      if (this.popups.delete(p.id)) this.dismissed.add(p.id);
    });
    this.popups.set(p.id, win);
    // The pop-up takes its prompt from here (popupUrl), not from another pending.list.
    void win.loadURL(popupUrl(p));
  }

  closePrompt(id: string): void {
    const win = this.popups.get(id);
    this.popups.delete(id);
    this.dismissed.delete(id);
    if (win && !win.isDestroyed()) win.close();
  }

  closeAll(): void {
    this.quitting = true;
    for (const w of this.all()) if (!w.isDestroyed()) w.destroy();
    this.popups.clear();
  }
}
