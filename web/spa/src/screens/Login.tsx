// Placeholder: the screen is written in its own change.
import { t } from '../i18n';
import type { ScreenProps } from '../router';
import { Page } from '../ui/basic';

export default function Login(_props: ScreenProps) {
  return <Page title={t('login.title')} />;
}
