from django.apps import AppConfig


class EventstoreConfig(AppConfig):
    name = "eventstore"
    verbose_name = "Event store"
