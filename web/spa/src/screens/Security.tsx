// Security: the password, the browser sessions, two-factor login.
import { useState } from 'preact/hooks';
import { t } from '../i18n';
import type { ScreenProps } from '../router';
import { Page } from '../ui/basic';
import { PasswordForm } from './security/Password';
import { Sessions } from './security/Sessions';
import { TwoFactor } from './security/TwoFactor';

export default function Security(_props: ScreenProps) {
  // A password change ends every other session: list them again.
  const [sessionsVersion, setSessionsVersion] = useState(0);
  return (
    <Page title={t('nav.security')}>
      <div class="card">
        <PasswordForm onChanged={() => setSessionsVersion((v) => v + 1)} />
      </div>
      <div class="card">
        <Sessions version={sessionsVersion} />
      </div>
      <div class="card">
        <TwoFactor />
      </div>
    </Page>
  );
}
