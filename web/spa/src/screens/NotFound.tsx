import { t } from '../i18n';
import { Link, type ScreenProps } from '../router';
import { Page } from '../ui/basic';

export default function NotFound(_props: ScreenProps) {
  return (
    <Page title={t('notfound.title')}>
      <p>{t('notfound.body')}</p>
      <p>
        <Link href="/">{t('notfound.home')}</Link>
      </p>
    </Page>
  );
}
