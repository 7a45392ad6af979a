import { toast } from './toast';

/** Copies text and says so (spec 000, section 8 messages). */
export async function copyToClipboard(text: string, success = 'Copied to clipboard'): Promise<boolean> {
  if (!navigator.clipboard?.writeText) {
    toast.error('Clipboard not available');
    return false;
  }
  try {
    await navigator.clipboard.writeText(text);
    toast.success(success);
    return true;
  } catch {
    toast.error('Failed to copy to clipboard');
    return false;
  }
}
