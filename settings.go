package murlog

// Keys of the settings table that more than one package reads. Site
// options edited by the owner are listed in package settings.
const (
	SettingDomain            = "domain"                 // host[:port] the site is served at
	SettingSetupComplete     = "setup_complete"         // "1" once setup step 2 committed
	SettingPasswordHash      = "password_hash"          // argon2id PHC string
	SettingLastPasswordReset = "last_password_reset_at" // RFC 3339
	SettingPasswordChangedAt = "password_changed_at"    // RFC 3339
	SettingAuthorizedFetch   = "authorized_fetch"       // "1": ActivityPub JSON only for signed GETs
)
