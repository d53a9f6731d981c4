/** Ingress, storage, objstore, company, mailer, smtp and mail. */
import { RESOURCES, serviceHost } from "./defaults.js";
import { common } from "./components.js";
import type { Values, ValuesInput } from "./types.js";

export function webValues({ spec: s, secrets, storage }: ValuesInput): Values {
  const i = s.ingress;
  const { releaseName: release, namespace } = s.platform;
  const sub = (name: "dashboards" | "metrics") => ({
    enabled: s.monitoring.enabled && i[name].enabled,
    type: i[name].type,
    domain: i[name].domain ?? `${name}.${i.domainName}`,
    pathPrefix: i[name].pathPrefix,
  });
  const smtpUser = s.smtp.auth.users[0];
  // With the in-cluster SMTP server, the mailer talks to it (and with its user when auth is on).
  const smtpSettings = s.smtp.enabled
    ? {
        ...s.mailer.smtp_settings,
        address: serviceHost(release, namespace, "smtp"),
        port: s.smtp.service.port,
        user_name: s.smtp.auth.enabled ? smtpUser?.username : "",
        password: s.smtp.auth.enabled ? secrets.smtpPassword : "",
      }
    : s.mailer.smtp_settings;
  return {
    ingress: {
      enabled: i.enabled,
      domainName: i.domainName,
      chatDomainName: i.chatDomainName,
      className: i.className,
      tls: i.tls,
      annotations: i.annotations,
      objstore: i.objstore,
      dashboards: sub("dashboards"),
      metrics: sub("metrics"),
    },
    storage: {
      provider: storage.provider,
      secret: { [{ S3: "cloudb", AzureStorage: "clouda", Minio: "objstore" }[storage.provider]]: storage.chartSecret },
    },
    objstore:
      storage.provider === "Minio"
        ? { ...common({ ...s.objstore, enabled: true }, RESOURCES.objstore), ...storage.componentValues }
        : storage.componentValues,
    company: s.company,
    mailer: { smtp_settings: smtpSettings, default_from_email: s.mailer.default_from_email },
    smtp: {
      ...common(s.smtp, RESOURCES.smtp),
      config: s.smtp.config,
      auth: {
        enabled: s.smtp.auth.enabled,
        // The user name is the package's (the reference hides it): the list is rendered only when a
        // stack names its users, since Helm replaces a list as a whole.
        ...(s.smtp.auth.users.length
          ? {
              users: s.smtp.auth.users.map((u, n) => ({
                username: u.username,
                password: n === 0 ? secrets.smtpPassword : u.password,
              })),
            }
          : {}),
      },
      service: s.smtp.service,
      image: s.smtp.image,
    },
    mail: {
      ...common(s.mail, RESOURCES.mail),
      persistence: s.mail.persistence,
      logrotate: s.mail.logrotate,
      config: s.mail.config,
      mountSecret: s.mail.mountSecret,
      // The relay forwards with the mailer's settings.
      smtp: s.mail.enabled ? s.mailer.smtp_settings : {},
    },
  };
}
